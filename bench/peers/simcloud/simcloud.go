// Package simcloud is ccm4j's sim cloud for Go: the instances a ccm4j sim cloud-config describes
// (listed or generated), with the same names, zones, instance types and addresses, behind the same
// per-call latency, so that the upstream cloud-controller-manager can be measured on the load
// ccm4j is measured on. The instances facet and a minimal load balancer facet (it keeps each load
// balancer's backends and counts the calls) exist; it is a measuring peer, not a provider. For
// side-by-side runs with ccm4j's sim cloud it also reads the instances' labels and state, finds an
// instance by a provider ID only of its own scheme (else by node name), and its admin endpoint
// shuts instances down, starts them and sets the fraction of failing calls (POST /error-rate).
package simcloud

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"sigs.k8s.io/yaml"
)

// ProviderName is the name the upstream manager selects with --cloud-provider, and the scheme of
// the provider IDs: the same as ccm4j's sim cloud.
const ProviderName = "sim"

// Config is the part of ccm4j's sim cloud-config this peer reads; other fields are ignored.
type Config struct {
	LatencyMs int64      `json:"latencyMs"`
	JitterMs  int64      `json:"jitterMs"`
	Admin     string     `json:"admin"`
	Instances []Instance `json:"instances"`
	Generate  *Generate  `json:"generate"`
	// AccountLimit is the account's API quota, as ccm4j's sim cloud enforces it: calls beyond the
	// token bucket fail at once as throttled (RequestLimitExceeded). Qps and Burst at the top level
	// are its older spelling.
	AccountLimit *AccountLimit `json:"accountLimit"`
	Qps          float64       `json:"qps"`
	Burst        int           `json:"burst"`
}

// AccountLimit is a token bucket: Qps calls a second, Burst saved up (1 when unset).
type AccountLimit struct {
	Qps   float64 `json:"qps"`
	Burst int     `json:"burst"`
}

// Throttled is the number of calls the account limit refused, under this name in GET /calls.
const Throttled = "throttled"

// Instance is one listed instance.
type Instance struct {
	Name         string            `json:"name"`
	Region       string            `json:"region"`
	Zone         string            `json:"zone"`
	InstanceType string            `json:"instanceType"`
	Addresses    []string          `json:"addresses"`
	Labels       map[string]string `json:"labels"`
	State        string            `json:"state"`
}

// Generate makes instances up by rule, as ccm4j's sim cloud does: prefix0..prefix(count-1), zones
// and instance types round robin, IPv4 addresses from 10.128.0.1 on. Regions are taken in
// alphabetical order (ccm4j takes them in the file's order: the same for one region).
type Generate struct {
	Count         int                 `json:"count"`
	Prefix        string              `json:"prefix"`
	Regions       map[string][]string `json:"regions"`
	InstanceTypes []string            `json:"instanceTypes"`
}

// Cloud implements cloudprovider.Interface with InstancesV2 only.
type Cloud struct {
	latency       time.Duration
	jitter        time.Duration
	mu            sync.RWMutex // guards instances and loadBalancers
	instances     map[string]Instance
	loadBalancers map[string]*loadBalancer
	calls         sync.Map      // method -> *atomic.Int64
	limit         *rate.Limiter // nil: no account limit
	errorRate     atomic.Value  // float64: fraction of calls failing
}

// loadBalancer is what the minimal load balancer facet keeps: an ingress IP and the backends.
type loadBalancer struct {
	ingress string
	nodes   []string
}

var _ cloudprovider.Interface = (*Cloud)(nil)
var _ cloudprovider.InstancesV2 = (*Cloud)(nil)
var _ cloudprovider.LoadBalancer = (*Cloud)(nil)

// Register makes "sim" known to cloudprovider.InitCloudProvider.
func Register() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		if config == nil {
			return nil, fmt.Errorf("sim: --cloud-config is required")
		}
		text, err := io.ReadAll(config)
		if err != nil {
			return nil, fmt.Errorf("sim: reading the cloud-config: %w", err)
		}
		return Parse(text)
	})
}

// Parse reads a sim cloud-config and starts its admin endpoint (GET /calls) when it names one.
func Parse(text []byte) (*Cloud, error) {
	var config Config
	if err := yaml.Unmarshal(text, &config); err != nil {
		return nil, fmt.Errorf("sim: cloud-config: %w", err)
	}
	cloud := &Cloud{
		latency:       time.Duration(config.LatencyMs) * time.Millisecond,
		jitter:        time.Duration(config.JitterMs) * time.Millisecond,
		instances:     map[string]Instance{},
		loadBalancers: map[string]*loadBalancer{},
	}
	for _, instance := range config.Instances {
		cloud.instances[instance.Name] = instance
	}
	limit := config.AccountLimit
	if limit == nil && config.Qps > 0 {
		limit = &AccountLimit{Qps: config.Qps, Burst: config.Burst}
	}
	if limit != nil {
		if limit.Qps <= 0 {
			return nil, fmt.Errorf("sim: field \"accountLimit.qps\" must be positive")
		}
		burst := limit.Burst
		if burst == 0 {
			burst = 1
		}
		if burst < 1 {
			return nil, fmt.Errorf("sim: field \"accountLimit.burst\" must be at least 1")
		}
		cloud.limit = rate.NewLimiter(rate.Limit(limit.Qps), burst)
	}
	if config.Generate != nil {
		generate(cloud.instances, config.Generate, regionZones(config.Generate.Regions))
	}
	if config.Admin != "" {
		if err := cloud.serveAdmin(config.Admin); err != nil {
			return nil, fmt.Errorf("sim: field \"admin\": %w", err)
		}
	}
	return cloud, nil
}

func regionZones(regions map[string][]string) [][2]string {
	names := make([]string, 0, len(regions))
	for region := range regions {
		names = append(names, region)
	}
	sort.Strings(names)
	var zones [][2]string
	for _, region := range names {
		for _, zone := range regions[region] {
			zones = append(zones, [2]string{region, zone})
		}
	}
	if len(zones) == 0 {
		zones = [][2]string{{"sim-region", "sim-zone"}}
	}
	return zones
}

func generate(into map[string]Instance, rule *Generate, zones [][2]string) {
	types := rule.InstanceTypes
	if len(types) == 0 {
		types = []string{"sim.standard"}
	}
	prefix := rule.Prefix
	if prefix == "" {
		prefix = "node-"
	}
	for i := 0; i < rule.Count; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		zone := zones[i%len(zones)]
		n := i + 1
		into[name] = Instance{
			Name:         name,
			Region:       zone[0],
			Zone:         zone[1],
			InstanceType: types[i%len(types)],
			Addresses:    []string{fmt.Sprintf("10.%d.%d.%d", 128+((n>>16)&0x7f), (n>>8)&0xff, n&0xff)},
		}
	}
}

func (c *Cloud) serveAdmin(address string) error {
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, _ *http.Request) {
		counts := map[string]int64{}
		c.calls.Range(func(key, value any) bool {
			counts[key.(string)] = value.(*atomic.Int64).Load()
			return true
		})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(counts)
	})
	// POST /instances/{name}/internal-ip?value=10.9.9.9: the instance's InternalIP changes (the
	// same endpoint as ccm4j's sim cloud).
	mux.HandleFunc("POST /instances/{name}/internal-ip", func(w http.ResponseWriter, r *http.Request) {
		if err := c.SetInternalIP(r.PathValue("name"), r.URL.Query().Get("value")); err != nil {
			http.Error(w, fmt.Sprintf("{\"error\":%q}", err.Error()), http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	// POST /instances/{name}/delete: the instance is gone (its node no longer exists in the cloud).
	mux.HandleFunc("POST /instances/{name}/delete", func(w http.ResponseWriter, r *http.Request) {
		if !c.Delete(r.PathValue("name")) {
			http.Error(w, "{\"error\":\"no instance\"}", http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	for _, action := range []string{"shutdown", "start"} {
		state := map[string]string{"shutdown": "shutdown", "start": ""}[action]
		mux.HandleFunc("POST /instances/{name}/"+action, func(w http.ResponseWriter, r *http.Request) {
			c.mu.Lock()
			defer c.mu.Unlock()
			instance, ok := c.instances[r.PathValue("name")]
			if !ok {
				http.Error(w, "{\"error\":\"no instance\"}", http.StatusNotFound)
				return
			}
			instance.State = state
			c.instances[instance.Name] = instance
			_, _ = w.Write([]byte("{}"))
		})
	}
	mux.HandleFunc("POST /error-rate", func(w http.ResponseWriter, r *http.Request) {
		var rate float64
		if _, err := fmt.Sscanf(r.URL.Query().Get("value"), "%g", &rate); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.errorRate.Store(rate)
		_, _ = w.Write([]byte("{}"))
	})
	go func() { _ = http.Serve(listener, mux) }()
	fmt.Fprintf(os.Stderr, "sim: admin endpoint on %s\n", listener.Addr())
	return nil
}

// call counts a cloud call, refuses it when the account limit is spent, and takes as long as the
// cloud's latency says.
func (c *Cloud) call(ctx context.Context, method string) error {
	if c.limit != nil && !c.limit.Allow() {
		c.count(Throttled)
		return fmt.Errorf("sim: RequestLimitExceeded: account API rate limit exceeded in %s", method)
	}
	c.count(method)
	if rate, _ := c.errorRate.Load().(float64); rate > 0 && rand.Float64() < rate {
		c.count("injectedErrors")
		return fmt.Errorf("sim: injected error in %s", method)
	}
	wait := c.latency
	if c.jitter > 0 {
		wait += time.Duration(rand.Int64N(int64(c.jitter)))
	}
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cloud) count(name string) {
	counter, _ := c.calls.LoadOrStore(name, new(atomic.Int64))
	counter.(*atomic.Int64).Add(1)
}

func (c *Cloud) instance(node *v1.Node) (Instance, bool) {
	name := node.Name
	if id := node.Spec.ProviderID; strings.HasPrefix(id, ProviderName+"://") {
		name = strings.TrimPrefix(id, ProviderName+"://")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	instance, ok := c.instances[name]
	return instance, ok
}

// Delete removes the instance; false when there was none.
func (c *Cloud) Delete(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.instances[name]
	delete(c.instances, name)
	return ok
}

// SetInternalIP replaces the instance's addresses with one InternalIP.
func (c *Cloud) SetInternalIP(name, address string) error {
	if net.ParseIP(address) == nil {
		return fmt.Errorf("sim: value %q is not an IP address", address)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	instance, ok := c.instances[name]
	if !ok {
		return fmt.Errorf("sim: no instance %s", name)
	}
	instance.Addresses = []string{address}
	c.instances[name] = instance
	return nil
}

// InstanceExists reports whether the node's instance is listed or generated.
func (c *Cloud) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	if err := c.call(ctx, "InstanceExists"); err != nil {
		return false, err
	}
	_, ok := c.instance(node)
	return ok, nil
}

// InstanceShutdown reports whether the instance's state is "shutdown".
func (c *Cloud) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	if err := c.call(ctx, "InstanceShutdown"); err != nil {
		return false, err
	}
	instance, ok := c.instance(node)
	return ok && instance.State == "shutdown", nil
}

// InstanceMetadata gives the provider ID, type, addresses, zone and region.
func (c *Cloud) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	if err := c.call(ctx, "InstanceMetadata"); err != nil {
		return nil, err
	}
	instance, ok := c.instance(node)
	if !ok {
		return nil, cloudprovider.InstanceNotFound
	}
	addresses := make([]v1.NodeAddress, 0, len(instance.Addresses)+1)
	for _, address := range instance.Addresses {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: address})
	}
	addresses = append(addresses, v1.NodeAddress{Type: v1.NodeHostName, Address: instance.Name})
	return &cloudprovider.InstanceMetadata{
		ProviderID:       ProviderName + "://" + instance.Name,
		InstanceType:     instance.InstanceType,
		NodeAddresses:    addresses,
		Zone:             instance.Zone,
		Region:           instance.Region,
		AdditionalLabels: instance.Labels,
	}, nil
}

// Initialize needs nothing.
func (c *Cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// LoadBalancer is the minimal facet below: one call each, through the account limit.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c, true }

// GetLoadBalancer reports the load balancer's ingress, when it exists.
func (c *Cloud) GetLoadBalancer(ctx context.Context, clusterName string, service *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	if err := c.call(ctx, "GetLoadBalancer"); err != nil {
		return nil, false, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	lb, ok := c.loadBalancers[c.GetLoadBalancerName(ctx, clusterName, service)]
	if !ok {
		return nil, false, nil
	}
	return status(lb), true, nil
}

// GetLoadBalancerName is upstream's default name.
func (c *Cloud) GetLoadBalancerName(_ context.Context, _ string, service *v1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

// EnsureLoadBalancer creates the load balancer (an ingress IP from 127.0.200.0/24) or updates its
// backends.
func (c *Cloud) EnsureLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	if err := c.call(ctx, "EnsureLoadBalancer"); err != nil {
		return nil, err
	}
	name := c.GetLoadBalancerName(ctx, clusterName, service)
	c.mu.Lock()
	defer c.mu.Unlock()
	lb, ok := c.loadBalancers[name]
	if !ok {
		lb = &loadBalancer{ingress: fmt.Sprintf("127.0.200.%d", 1+len(c.loadBalancers)%254)}
		c.loadBalancers[name] = lb
	}
	lb.nodes = nodeNames(nodes)
	return status(lb), nil
}

// UpdateLoadBalancer sets the backends: the call a node-set change makes per load balancer.
func (c *Cloud) UpdateLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) error {
	if err := c.call(ctx, "UpdateLoadBalancer"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if lb, ok := c.loadBalancers[c.GetLoadBalancerName(ctx, clusterName, service)]; ok {
		lb.nodes = nodeNames(nodes)
	}
	return nil
}

// EnsureLoadBalancerDeleted forgets the load balancer.
func (c *Cloud) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, service *v1.Service) error {
	if err := c.call(ctx, "EnsureLoadBalancerDeleted"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.loadBalancers, c.GetLoadBalancerName(ctx, clusterName, service))
	return nil
}

func status(lb *loadBalancer) *v1.LoadBalancerStatus {
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.ingress}}}
}

func nodeNames(nodes []*v1.Node) []string {
	names := make([]string, 0, len(nodes))
	for _, node := range nodes {
		names = append(names, node.Name)
	}
	return names
}

// Instances (v1) is not offered: InstancesV2 is.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 is this cloud.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c, true }

// Zones is not offered: InstanceMetadata carries them.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not offered.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is not offered.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return nil, false }

// ProviderName is "sim".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is true: the peer's instances belong to the cluster measured.
func (c *Cloud) HasClusterID() bool { return true }
