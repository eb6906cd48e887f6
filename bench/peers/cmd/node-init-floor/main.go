// Command node-init-floor is the floor of ccm4j's node-init benchmark: a bare client-go client,
// speaking protobuf, doing for each of N nodes what registration and a CCM's initialisation cost
// the API server and nothing else: create the Node (as a kubelet registers it, tainted
// uninitialized), update it (provider ID, topology labels, taint removed), patch its status
// (addresses) and create one event. It prints one JSON line: wall seconds, its own CPU and peak RSS.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

type result struct {
	Nodes      int     `json:"nodes"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSKiB int64   `json:"peakRssKiB"`
	Errors     int64   `json:"errors"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	nodes := flag.Int("nodes", 1000, "how many nodes")
	prefix := flag.String("prefix", "floor-", "node name prefix")
	workers := flag.Int("workers", 64, "concurrent nodes in flight")
	qps := flag.Float64("qps", 5000, "client QPS (burst the same)")
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

	ctx := context.Background()
	names := make(chan string)
	var errors int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	before := cpuSeconds()
	start := time.Now()
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := initialise(ctx, client, name); err != nil {
					mu.Lock()
					errors++
					if errors <= 5 {
						fmt.Fprintf(os.Stderr, "floor: %s: %v\n", name, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < *nodes; i++ {
		names <- fmt.Sprintf("%s%d", *prefix, i)
	}
	close(names)
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	_ = json.NewEncoder(os.Stdout).Encode(result{
		Nodes:      *nodes,
		Seconds:    elapsed,
		CPUSeconds: cpuSeconds() - before,
		PeakRSSKiB: peakRSSKiB(),
		Errors:     errors,
	})
	if errors > 0 {
		os.Exit(1)
	}
}

func initialise(ctx context.Context, client kubernetes.Interface, name string) error {
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"ccm4j.io/bench": "floor", "kubernetes.io/hostname": name},
		},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{
			Key:    "node.cloudprovider.kubernetes.io/uninitialized",
			Value:  "true",
			Effect: v1.TaintEffectNoSchedule,
		}}},
	}
	created, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	created.Spec.ProviderID = "sim://" + name
	created.Spec.Taints = nil
	created.Labels["topology.kubernetes.io/zone"] = "floor-1a"
	created.Labels["topology.kubernetes.io/region"] = "floor-1"
	created.Labels["node.kubernetes.io/instance-type"] = "sim.small"
	if _, err := client.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	patch := fmt.Sprintf(`{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":%q}]}}`, name)
	if _, err := client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("status patch: %w", err)
	}
	event := &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: "default"},
		InvolvedObject: v1.ObjectReference{Kind: "Node", Name: name, UID: created.UID},
		Reason:         "Synced",
		Message:        "Node synced successfully",
		Type:           v1.EventTypeNormal,
		Source:         v1.EventSource{Component: "cloud-node-controller"},
		FirstTimestamp: metav1.Now(),
		LastTimestamp:  metav1.Now(),
		Count:          1,
	}
	if _, err := client.CoreV1().Events("default").Create(ctx, event, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("event: %w", err)
	}
	return nil
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
}

// peakRSSKiB is VmHWM, this process's own peak; getrusage's ru_maxrss would carry the peak of the
// process that exec'ed it (here the benchmark's JVM) across the exec.
func peakRSSKiB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kib int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kib)
			return kib
		}
	}
	return 0
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "floor: "+format+"\n", args...)
	os.Exit(2)
}
