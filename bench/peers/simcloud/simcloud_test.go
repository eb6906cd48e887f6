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
