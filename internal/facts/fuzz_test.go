package facts

import "testing"

// FuzzBuild feeds arbitrary bytes as each kind of fact file: the builder must
// never panic, whatever a bundle holds.
func FuzzBuild(f *testing.F) {
	f.Add([]byte(`{"format_version":1,"host":{"instance_id":"i-1"},"sources":[{"name":"x","status":"failed"}]}`))
	f.Add([]byte(`{"account_id":"1","role_name":"r","vpc_ipv4_cidr_blocks":["10.0.0.0/16"]}`))
	f.Add([]byte(`[{"name":"apiserver","verdict":"tcp"}]`))
	f.Add([]byte("ID=\"amzn\"\nVERSION_ID=\"2023\"\n"))
	f.Add([]byte("+ /etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBuilder()
		for _, name := range []string{"manifest.json", "imds/metadata.json", "probes/probes.json", "system/os-release",
			"userdata/user-data.txt", "kubelet/config.json", "kubelet/kubeconfig.yaml", "ipamd/ipamd-env-settings.json",
			"nodeadm/config.json", "settings.json", "var_log/cloud-init-output.log", "eks/release", "kernel/uname.txt"} {
			b.Add(name, data)
		}
		s, _ := b.Build()
		for k := range s {
			if k == "" {
				t.Fatal("empty fact name")
			}
		}
	})
}
