package benchgen

// Container logs of the kube-system pods as the kubelet stores them under
// /var/log/pods (CRI format: "<RFC 3339 nano> stdout F <line>"): the
// aws-node container, kube-proxy and CoreDNS.

// appendCRIHead appends "2026-11-29T14:26:31.123456789Z stdout F ".
func appendCRIHead(g *gen, b []byte, stream string) []byte {
	b = g.now.appendRFC3339Nano(b, g.r.IntN(1000))
	b = append(b, ' ')
	b = append(b, stream...)
	return append(b, " F "...)
}

// awsNodeLine appends one line of the aws-node container log; its content
// is ipamd's, which aws-node also writes to stdout.
func awsNodeLine(g *gen, b []byte) []byte {
	b = appendCRIHead(g, b, "stdout")
	return ipamdLine(g, b)
}

var serviceNames = []string{
	"checkout/checkout-api:http", "checkout/cart-service:grpc", "payments/payments-worker:metrics",
	"web/frontend-web:https", "web/session-cache:redis", "orders/orders-consumer:metrics",
	"kube-system/kube-dns:dns", "kube-system/kube-dns:dns-tcp", "kube-system/metrics-server:https",
	"default/kubernetes:https", "monitoring/kube-state-metrics:http-metrics",
}

var kubeProxyMakers = newWeighted(
	option{4, func(g *gen, b []byte) []byte {
		b = g.klogHeader(b, 'I', 1, "proxier.go:805")
		return append(b, `"Syncing iptables rules"`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = g.klogHeader(b, 'I', 1, "proxier.go:1494")
		b = append(b, `"Reloading service iptables data" numServices=`...)
		b = appendInt(b, 40+g.r.IntN(8))
		b = append(b, ` numEndpoints=`...)
		b = appendInt(b, 80+g.r.IntN(30))
		b = append(b, ` numFilterChains=6 numFilterRules=`...)
		b = appendInt(b, 6+g.r.IntN(6))
		b = append(b, ` numNATChains=`...)
		b = appendInt(b, 100+g.r.IntN(20))
		b = append(b, ` numNATRules=`...)
		return appendInt(b, 240+g.r.IntN(40))
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = g.klogHeader(b, 'I', 1, "proxier.go:799")
		b = append(b, `"SyncProxyRules complete" elapsed="`...)
		b = appendMillis(b, 3_000+g.r.Int64N(60_000))
		return append(b, '"')
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = g.klogHeader(b, 'I', 1, "endpointslicecache.go:348")
		b = append(b, `"Setting endpoints for service port" portName="`...)
		b = append(b, pick(g.r, serviceNames)...)
		b = append(b, `" endpoints=["`...)
		b = appendPodIP(g, b)
		b = append(b, `:8080","`...)
		b = appendPodIP(g, b)
		return append(b, `:8080"]`...)
	}},
)

// kubeProxyLine appends one line of the kube-proxy container log.
func kubeProxyLine(g *gen, b []byte) []byte {
	b = appendCRIHead(g, b, "stderr")
	return kubeProxyMakers.pick(g)(g, b)
}

var dnsNames = []string{
	"checkout-api.checkout.svc.cluster.local.", "cart-service.checkout.svc.cluster.local.",
	"ledger-db-0.ledger-db.payments.svc.cluster.local.", "session-cache.web.svc.cluster.local.",
	"sts.ap-northeast-1.amazonaws.com.", "ecr.ap-northeast-1.amazonaws.com.",
	"sqs.ap-northeast-1.amazonaws.com.", "dynamodb.ap-northeast-1.amazonaws.com.",
	"api.stripe.com.checkout.svc.cluster.local.", "kubernetes.default.svc.cluster.local.",
}

var dnsAnswers = []string{"NOERROR qr,aa,rd", "NOERROR qr,rd,ra", "NXDOMAIN qr,aa,rd"}

// coreDNSLine appends one line of the CoreDNS container log (its query log).
func coreDNSLine(g *gen, b []byte) []byte {
	b = appendCRIHead(g, b, "stdout")
	b = append(b, "[INFO] "...)
	b = appendPodIP(g, b)
	b = append(b, ':')
	b = appendInt(b, 32768+g.r.IntN(28000))
	b = append(b, " - "...)
	b = appendInt(b, g.r.IntN(65536))
	b = append(b, ` "`...)
	b = append(b, pick(g.r, []string{"A", "AAAA"})...)
	b = append(b, " IN "...)
	b = append(b, pick(g.r, dnsNames)...)
	b = append(b, " udp "...)
	b = appendInt(b, 40+g.r.IntN(40))
	b = append(b, ` false 512" `...)
	b = append(b, pick(g.r, dnsAnswers)...)
	b = append(b, ' ')
	b = appendInt(b, 60+g.r.IntN(200))
	b = append(b, ' ')
	b = appendFraction(b, 0, 50+g.r.Int64N(5000), 6)
	return append(b, 's')
}
