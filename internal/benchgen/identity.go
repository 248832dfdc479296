package benchgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// identity is the node a bundle pretends to come from and the pods that run
// on it. It is derived from the seed alone, so every file of a bundle (and
// every run with the same seed) names the same node, pods and containers.
type identity struct {
	ip           string // 10.0.x.y
	hostname     string // ip-10-0-x-y.ap-northeast-1.compute.internal
	shortHost    string // ip-10-0-x-y
	instanceID   string
	accountID    string
	region       string
	zone         string
	instanceType string
	amiID        string
	subnetID     string
	eniIDs       []string
	kernel       string
	cluster      string
	bootID       string
	machineID    string
	pods         []pod
	images       []string
}

// pod is one pod of the node with the strings log lines need about it.
type pod struct {
	namespace  string
	name       string
	key        string // namespace/name
	uid        string
	ip         string
	containers []string
	image      string
	volumes    []string
	sandbox    string // 64 hex digits
}

// The versions the node runs; fixed so that the bundle reads like one AMI.
const (
	kubeletVersion    = "v1.33.5-eks-3025e55"
	containerdVersion = "2.1.4"
	nodeadmVersion    = "v0.1.0-20251118"
	kernelRelease     = "6.12.46-66.121.amzn2023.x86_64"
	amiName           = "amazon-eks-node-al2023-x86_64-standard-1.33-v20251120"
	ecrRegistry       = "602401143452.dkr.ecr.ap-northeast-1.amazonaws.com"
	pidKubelet        = 2817
	pidContainerd     = 2790
	pidNodeadm        = 1890
	pidNodeadmRun     = 2714
	pidCloudInit      = 1712
)

// workload describes pods of one controller.
type workload struct {
	namespace  string
	name       string
	kind       byte // 'd' deployment, 's' daemonset, 't' statefulset
	replicas   int
	containers []string
	image      string
	volumes    []string
}

var workloads = []workload{
	{"kube-system", "aws-node", 's', 1, []string{"aws-node", "aws-eks-nodeagent"}, ecrRegistry + "/amazon-k8s-cni:v1.20.4-eksbuild.1", []string{"cni-bin-dir", "cni-net-dir", "log-dir", "run-dir", "xtables-lock", "bpf-pin-path"}},
	{"kube-system", "kube-proxy", 's', 1, []string{"kube-proxy"}, ecrRegistry + "/eks/kube-proxy:v1.33.5-minimal-eksbuild.2", []string{"varlog", "xtables-lock", "lib-modules", "kubeconfig", "config"}},
	{"kube-system", "ebs-csi-node", 's', 1, []string{"ebs-plugin", "node-driver-registrar", "liveness-probe"}, ecrRegistry + "/eks/aws-ebs-csi-driver:v1.51.1", []string{"kubelet-dir", "plugin-dir", "registration-dir", "device-dir", "probe-dir"}},
	{"kube-system", "eks-pod-identity-agent", 's', 1, []string{"eks-pod-identity-agent"}, ecrRegistry + "/eks/eks-pod-identity-agent:0.1.34", []string{"kube-api-access"}},
	{"kube-system", "coredns", 'd', 2, []string{"coredns"}, ecrRegistry + "/eks/coredns:v1.12.4-eksbuild.1", []string{"config-volume", "tmp"}},
	{"kube-system", "ebs-csi-controller", 'd', 2, []string{"ebs-plugin", "csi-provisioner", "csi-attacher", "csi-snapshotter", "csi-resizer", "liveness-probe"}, ecrRegistry + "/eks/aws-ebs-csi-driver:v1.51.1", []string{"socket-dir", "aws-iam-token"}},
	{"kube-system", "metrics-server", 'd', 1, []string{"metrics-server"}, "registry.k8s.io/metrics-server/metrics-server:v0.8.0", []string{"tmp-dir"}},
	{"kube-system", "aws-load-balancer-controller", 'd', 2, []string{"aws-load-balancer-controller"}, "public.ecr.aws/eks/aws-load-balancer-controller:v2.14.1", []string{"cert", "aws-iam-token"}},
	{"kube-system", "cluster-autoscaler", 'd', 1, []string{"cluster-autoscaler"}, "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.1", []string{"ssl-certs", "aws-iam-token"}},
	{"cert-manager", "cert-manager", 'd', 1, []string{"cert-manager-controller"}, "quay.io/jetstack/cert-manager-controller:v1.19.1", nil},
	{"cert-manager", "cert-manager-cainjector", 'd', 1, []string{"cert-manager-cainjector"}, "quay.io/jetstack/cert-manager-cainjector:v1.19.1", nil},
	{"cert-manager", "cert-manager-webhook", 'd', 1, []string{"cert-manager-webhook"}, "quay.io/jetstack/cert-manager-webhook:v1.19.1", nil},
	{"monitoring", "prometheus-node-exporter", 's', 1, []string{"node-exporter"}, "quay.io/prometheus/node-exporter:v1.10.2", []string{"proc", "sys", "root"}},
	{"monitoring", "kube-state-metrics", 'd', 1, []string{"kube-state-metrics"}, "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.17.0", nil},
	{"monitoring", "fluent-bit", 's', 1, []string{"fluent-bit"}, "public.ecr.aws/aws-observability/aws-for-fluent-bit:2.34.1", []string{"varlog", "varlibdockercontainers", "fluent-bit-config", "runlogjournal", "dmesg"}},
	{"monitoring", "grafana", 'd', 1, []string{"grafana", "grafana-sc-dashboard"}, "docker.io/grafana/grafana:12.2.1", []string{"config", "storage", "sc-dashboard-volume"}},
	{"checkout", "checkout-api", 'd', 4, []string{"checkout-api", "istio-proxy"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/checkout/api:2025.11.27-4f1c9e2", []string{"config", "tls-certs", "istio-envoy", "istio-data"}},
	{"checkout", "cart-service", 'd', 3, []string{"cart-service"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/checkout/cart:2025.11.25-a81d07b", []string{"config"}},
	{"payments", "payments-worker", 'd', 3, []string{"worker"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/payments/worker:3.18.2", []string{"config", "secrets-store"}},
	{"payments", "ledger-db", 't', 2, []string{"postgres", "pgbouncer"}, "docker.io/library/postgres:17.6", []string{"data", "dshm", "config"}},
	{"orders", "orders-consumer", 'd', 4, []string{"consumer"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/orders/consumer:1.42.0", []string{"config"}},
	{"orders", "inventory-sync", 'd', 2, []string{"inventory-sync"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/orders/inventory-sync:0.9.13", nil},
	{"web", "frontend-web", 'd', 5, []string{"nginx", "frontend"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/web/frontend:2025.11.28-77ce310", []string{"nginx-conf", "static-assets"}},
	{"web", "session-cache", 't', 3, []string{"redis"}, "docker.io/library/redis:7.4.6", []string{"data"}},
	{"search", "search-indexer", 'd', 2, []string{"indexer"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/search/indexer:5.2.1", []string{"config", "scratch"}},
	{"ml", "recommendation-engine", 'd', 2, []string{"engine", "model-loader"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/ml/reco:2025.11.20", []string{"models", "cache"}},
	{"notify", "notification-dispatcher", 'd', 2, []string{"dispatcher"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/notify/dispatcher:0.31.4", []string{"config"}},
	{"default", "auth-gateway", 'd', 3, []string{"gateway"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/platform/auth-gateway:4.6.0", []string{"jwks", "config"}},
	{"batch", "report-builder", 'd', 2, []string{"builder"}, "123456789012.dkr.ecr.ap-northeast-1.amazonaws.com/batch/report-builder:2.0.7", []string{"scratch"}},
}

// kube-style random name suffixes avoid vowels and look-alike digits.
const kubeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// newIdentity builds the node and its pods from seed.
func newIdentity(seed uint64) *identity {
	r := rand.New(rand.NewPCG(seed, 0x6e6f6465)) // "node"
	third, fourth := 1+r.IntN(62), 2+r.IntN(250)
	id := &identity{
		region:       "ap-northeast-1",
		zone:         "ap-northeast-1" + string("acd"[r.IntN(3)]),
		instanceType: pick(r, []string{"m5.large", "m6i.xlarge", "m7i.large", "c6i.2xlarge", "r6i.large"}),
		accountID:    "123456789012",
		cluster:      "prod-apne1",
		kernel:       kernelRelease,
	}
	id.ip = "10.0." + strconv.Itoa(third) + "." + strconv.Itoa(fourth)
	id.shortHost = "ip-10-0-" + strconv.Itoa(third) + "-" + strconv.Itoa(fourth)
	id.hostname = id.shortHost + "." + id.region + ".compute.internal"
	id.instanceID = "i-0" + string(appendHex(nil, r, 16))
	id.amiID = "ami-0" + string(appendHex(nil, r, 16))
	id.subnetID = "subnet-0" + string(appendHex(nil, r, 16))
	for range 3 {
		id.eniIDs = append(id.eniIDs, "eni-0"+string(appendHex(nil, r, 16)))
	}
	id.bootID = string(appendHex(nil, r, 32))
	id.machineID = "ec2" + string(appendHex(nil, r, 29))
	id.pods = makePods(r, third)
	seen := map[string]bool{}
	for _, p := range id.pods {
		if !seen[p.image] {
			seen[p.image] = true
			id.images = append(id.images, p.image)
		}
	}
	return id
}

// makePods creates the pods of every workload with kube-style names.
func makePods(r *rand.Rand, subnet int) []pod {
	var pods []pod
	hostIP := 10
	for _, w := range workloads {
		hash := string(appendFrom(nil, r, kubeAlphabet, 10))
		for i := range w.replicas {
			var name string
			switch w.kind {
			case 's':
				name = w.name + "-" + string(appendFrom(nil, r, kubeAlphabet, 5))
			case 't':
				name = w.name + "-" + strconv.Itoa(i)
			default:
				name = w.name + "-" + hash + "-" + string(appendFrom(nil, r, kubeAlphabet, 5))
			}
			vols := append([]string{"kube-api-access-" + string(appendFrom(nil, r, kubeAlphabet, 5))}, w.volumes...)
			pods = append(pods, pod{
				namespace:  w.namespace,
				name:       name,
				key:        w.namespace + "/" + name,
				uid:        string(appendUUID(nil, r)),
				ip:         "10.0." + strconv.Itoa(subnet) + "." + strconv.Itoa(hostIP+len(pods)*3%200),
				containers: w.containers,
				image:      w.image,
				volumes:    vols,
				sandbox:    string(appendHex(nil, r, 64)),
			})
		}
	}
	return pods
}

// podDir is the name of a pod's log folder under /var/log/pods.
func (p *pod) podDir() string {
	return p.namespace + "_" + p.name + "_" + p.uid
}

// slicePod is the pod UID as systemd writes it in a slice name.
func (p *pod) slicePod() string {
	return strings.ReplaceAll(p.uid, "-", "_")
}

// findPod returns the first pod whose name starts with prefix.
func (id *identity) findPod(prefix string) *pod {
	for i := range id.pods {
		if strings.HasPrefix(id.pods[i].name, prefix) {
			return &id.pods[i]
		}
	}
	return &id.pods[0]
}
