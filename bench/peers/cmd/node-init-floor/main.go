// Command node-init-floor is the floor of ccm4j's node-init benchmark: a bare client-go manager,
// speaking protobuf, that does for each Node what a cloud controller manager's initialisation costs
// the API server and nothing else. It watches Nodes with a shared informer as a manager does (the
// same kubelet-shaped Nodes the managers get, registered by the benchmark), and for each Node
// tainted uninitialized, from --workers goroutines: updates it (provider ID, topology labels, the
// taint removed), patches its status (addresses) and, unless --events=false, creates one event. It
// asks no cloud (no latency) and runs until it is stopped; the benchmark reads its CPU and memory
// from /proc as it does a manager's.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

const uninitialized = "node.cloudprovider.kubernetes.io/uninitialized"

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	workers := flag.Int("workers", 64, "nodes initialised at once")
	qps := flag.Float64("qps", 5000, "client QPS (burst the same)")
	events := flag.Bool("events", true, "create one event per node initialised, as a manager does")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	config.ContentType = "application/vnd.kubernetes.protobuf"
	config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	config.QPS = float32(*qps)
	config.Burst = int(*qps)
	config.UserAgent = "ccm4j-bench-floor"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("client: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	factory := informers.NewSharedInformerFactory(client, 0)
	nodes := factory.Core().V1().Nodes()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj any) {
		if node, ok := obj.(*v1.Node); ok && tainted(node) {
			queue.Add(node.Name)
		}
	}
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), nodes.Informer().HasSynced) {
		fail("the Node informer did not sync")
	}
	for w := 0; w < *workers; w++ {
		go func() {
			for {
				name, shutdown := queue.Get()
				if shutdown {
					return
				}
				node, err := nodes.Lister().Get(name)
				if err == nil && tainted(node) {
					err = initialise(ctx, client, node.DeepCopy(), *events)
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "floor: %s: %v\n", name, err)
					queue.AddRateLimited(name)
				} else {
					queue.Forget(name)
				}
				queue.Done(name)
			}
		}()
	}
	<-ctx.Done()
	queue.ShutDown()
}

func tainted(node *v1.Node) bool {
	for _, taint := range node.Spec.Taints {
		if taint.Key == uninitialized {
			return true
		}
	}
	return false
}

func initialise(ctx context.Context, client kubernetes.Interface, node *v1.Node, events bool) error {
	name := node.Name
	node.Spec.ProviderID = "sim://" + name
	var taints []v1.Taint
	for _, taint := range node.Spec.Taints {
		if taint.Key != uninitialized {
			taints = append(taints, taint)
		}
	}
	node.Spec.Taints = taints
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels["topology.kubernetes.io/zone"] = "floor-1a"
	node.Labels["topology.kubernetes.io/region"] = "floor-1"
	node.Labels["node.kubernetes.io/instance-type"] = "sim.small"
	updated, err := client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	patch := fmt.Sprintf(`{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":%q}]}}`, name)
	if _, err := client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("status patch: %w", err)
	}
	if !events {
		return nil
	}
	now := metav1.NewTime(time.Now())
	event := &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: "default"},
		InvolvedObject: v1.ObjectReference{Kind: "Node", Name: name, UID: updated.UID},
		Reason:         "Synced",
		Message:        "Node synced successfully",
		Type:           v1.EventTypeNormal,
		Source:         v1.EventSource{Component: "cloud-node-controller"},
		FirstTimestamp: now,
		LastTimestamp:  now,
		Count:          1,
	}
	if _, err := client.CoreV1().Events("default").Create(ctx, event, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("event: %w", err)
	}
	return nil
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "floor: "+format+"\n", args...)
	os.Exit(2)
}
