// Command sim-cloud-controller-manager is the upstream cloud-controller-manager
// (k8s.io/cloud-provider's app, at the version of the control plane it is measured against) with
// the sim cloud of package simcloud: the peer ccm4j's node-init benchmark runs on the same load.
package main

import (
	"os"

	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"

	"ccm4j.io/bench/peers/simcloud"
)

func main() {
	simcloud.Register()
	ccmOptions, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	command := app.NewCloudControllerManagerCommand(
		ccmOptions,
		initCloud,
		app.DefaultInitFuncConstructors,
		names.CCMControllerAliases(),
		cliflag.NamedFlagSets{},
		wait.NeverStop)
	os.Exit(cli.Run(command))
}

func initCloud(completed *config.CompletedConfig) cloudprovider.Interface {
	shared := completed.ComponentConfig.KubeCloudShared.CloudProvider
	cloud, err := cloudprovider.InitCloudProvider(shared.Name, shared.CloudConfigFile)
	if err != nil {
		klog.Fatalf("cloud provider %q could not be initialized: %v", shared.Name, err)
	}
	if cloud == nil {
		klog.Fatalf("no cloud provider %q (this peer knows %q)", shared.Name, simcloud.ProviderName)
	}
	return cloud
}
