package simcloud

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheAccountLimitRefusesCallsBeyondItsBurstAsThrottled(t *testing.T) {
	cloud, err := Parse([]byte("accountLimit: {qps: 0.001, burst: 2}\ngenerate: {count: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}
	for i := 0; i < 2; i++ {
		if _, err := cloud.InstanceExists(context.Background(), node); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	_, err = cloud.InstanceExists(context.Background(), node)
	if err == nil || !strings.Contains(err.Error(), "RequestLimitExceeded") {
		t.Fatalf("want a throttling error, got %v", err)
	}
	counts := map[string]int64{}
	cloud.calls.Range(func(key, value any) bool {
		counts[key.(string)] = value.(interface{ Load() int64 }).Load()
		return true
	})
	if counts["InstanceExists"] != 2 || counts[Throttled] != 1 {
		t.Fatalf("want 2 calls and 1 throttled, got %v", counts)
	}
}

func TestABadAccountLimitNamesItsField(t *testing.T) {
	_, err := Parse([]byte("accountLimit: {qps: 0}\n"))
	if err == nil || !strings.Contains(err.Error(), "accountLimit.qps") {
		t.Fatalf("want an error naming accountLimit.qps, got %v", err)
	}
}

func TestAnInternalIPChangedOnTheAdminSideIsWhatMetadataAnswers(t *testing.T) {
	cloud, err := Parse([]byte("generate: {count: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cloud.SetInternalIP("node-0", "10.9.9.9"); err != nil {
		t.Fatal(err)
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}
	metadata, err := cloud.InstanceMetadata(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	if metadata.NodeAddresses[0].Address != "10.9.9.9" {
		t.Fatalf("want 10.9.9.9 first, got %v", metadata.NodeAddresses)
	}
	if err := cloud.SetInternalIP("node-0", "not-an-ip"); err == nil {
		t.Fatal("want an error for a value that is not an IP")
	}
}

func TestTheLoadBalancerFacetKeepsBackendsAndCountsUpdates(t *testing.T) {
	cloud, err := Parse([]byte("generate: {count: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	service := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}}
	status, err := cloud.EnsureLoadBalancer(context.Background(), "c", service, nodes)
	if err != nil || len(status.Ingress) != 1 {
		t.Fatalf("want an ingress, got %v, %v", status, err)
	}
	nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
	if err := cloud.UpdateLoadBalancer(context.Background(), "c", service, nodes); err != nil {
		t.Fatal(err)
	}
	if got := cloud.loadBalancers[cloud.GetLoadBalancerName(context.Background(), "c", service)].nodes; len(got) != 2 {
		t.Fatalf("want 2 backends, got %v", got)
	}
	counter, _ := cloud.calls.Load("UpdateLoadBalancer")
	if counter == nil || counter.(interface{ Load() int64 }).Load() != 1 {
		t.Fatalf("want 1 UpdateLoadBalancer call counted")
	}
	if _, exists, _ := cloud.GetLoadBalancer(context.Background(), "c", service); !exists {
		t.Fatal("want the load balancer to exist")
	}
	if err := cloud.EnsureLoadBalancerDeleted(context.Background(), "c", service); err != nil {
		t.Fatal(err)
	}
	if _, exists, _ := cloud.GetLoadBalancer(context.Background(), "c", service); exists {
		t.Fatal("want the load balancer gone")
	}
}

func TestADeletedInstanceNoLongerExists(t *testing.T) {
	cloud, err := Parse([]byte("generate: {count: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !cloud.Delete("node-0") || cloud.Delete("node-0") {
		t.Fatal("want the first delete to find the instance and the second not")
	}
	exists, err := cloud.InstanceExists(context.Background(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}})
	if err != nil || exists {
		t.Fatalf("want gone, got %v, %v", exists, err)
	}
}
