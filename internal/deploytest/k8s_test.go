package deploytest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const manifestDir = "../../deploy/k8s"

// k8sObject models the batch/v1 Job fields the manifests may use, with the
// names of the Kubernetes API. Decoding with known fields only makes a
// misspelt key (hostPid, readonly) fail the test instead of being dropped
// silently by the API server. A field added to a manifest must be added here.
type k8sObject struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		BackoffLimit            *int `yaml:"backoffLimit"`
		ActiveDeadlineSeconds   int  `yaml:"activeDeadlineSeconds"`
		TTLSecondsAfterFinished int  `yaml:"ttlSecondsAfterFinished"`
		Template                struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     podSpec    `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type objectMeta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
}

type podSpec struct {
	NodeName                     string       `yaml:"nodeName"`
	RestartPolicy                string       `yaml:"restartPolicy"`
	Tolerations                  []toleration `yaml:"tolerations"`
	HostPID                      bool         `yaml:"hostPID"`
	HostNetwork                  bool         `yaml:"hostNetwork"`
	DNSPolicy                    string       `yaml:"dnsPolicy"`
	AutomountServiceAccountToken *bool        `yaml:"automountServiceAccountToken"`
	PriorityClassName            string       `yaml:"priorityClassName"`
	InitContainers               []container  `yaml:"initContainers"`
	Containers                   []container  `yaml:"containers"`
	Volumes                      []volume     `yaml:"volumes"`
}

type toleration struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Effect   string `yaml:"effect"`
}

type container struct {
	Name            string        `yaml:"name"`
	Image           string        `yaml:"image"`
	Command         []string      `yaml:"command"`
	Args            []string      `yaml:"args"`
	VolumeMounts    []volumeMount `yaml:"volumeMounts"`
	SecurityContext struct {
		Privileged               *bool `yaml:"privileged"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		RunAsUser                *int  `yaml:"runAsUser"`
		Capabilities             struct {
			Add  []string `yaml:"add"`
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly"`
}

type volume struct {
	Name     string `yaml:"name"`
	HostPath *struct {
		Path string `yaml:"path"`
		Type string `yaml:"type"`
	} `yaml:"hostPath"`
	EmptyDir *struct {
		SizeLimit string `yaml:"sizeLimit"`
	} `yaml:"emptyDir"`
}

// loadManifests decodes every YAML document of every .yaml file under
// deploy/k8s, keyed by "file#index".
func loadManifests(t *testing.T) map[string]k8sObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", manifestDir)
	}
	objects := map[string]k8sObject{}
	for _, file := range files {
		dec := yaml.NewDecoder(bytes.NewReader(readFile(t, file)))
		dec.KnownFields(true)
		for i := 0; ; i++ {
			var obj k8sObject
			err := dec.Decode(&obj)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			objects[filepath.Base(file)+"#"+strconv.Itoa(i)] = obj
		}
	}
	return objects
}

func TestKubernetesJobs(t *testing.T) {
	for name, obj := range loadManifests(t) {
		t.Run(name, func(t *testing.T) {
			if obj.Kind != "Job" || obj.APIVersion != "batch/v1" {
				t.Fatalf("kind %q apiVersion %q, want a batch/v1 Job", obj.Kind, obj.APIVersion)
			}
			if obj.Spec.BackoffLimit == nil || *obj.Spec.BackoffLimit != 0 {
				t.Error("backoffLimit must be 0: a second run on a sick node adds load and no news")
			}
			pod := obj.Spec.Template.Spec
			if !pod.HostPID {
				t.Error("hostPID must be true")
			}
			if !pod.HostNetwork {
				t.Error("hostNetwork must be true so that probes and IMDS see the node's network")
			}
			if pod.NodeName == "" {
				t.Error("nodeName must name the node (a placeholder to replace)")
			}
			if pod.RestartPolicy != "Never" {
				t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
			}
			if !slices.Contains(pod.Tolerations, toleration{Operator: "Exists"}) {
				t.Error("a toleration with operator Exists and no key is needed to run on tainted nodes")
			}

			hostRoot := ""
			for _, v := range pod.Volumes {
				if v.HostPath != nil && v.HostPath.Path == "/" {
					hostRoot = v.Name
				}
			}
			if hostRoot == "" {
				t.Fatal("no hostPath volume for /")
			}

			all := append(slices.Clone(pod.InitContainers), pod.Containers...)
			var collect *container
			for i, c := range all {
				for _, m := range c.VolumeMounts {
					if m.Name == hostRoot && !m.ReadOnly {
						t.Errorf("container %s mounts the host root read-write", c.Name)
					}
				}
				if len(c.Command) > 0 && c.Command[0] == "collect" {
					collect = &all[i]
				}
			}
			if collect == nil {
				t.Fatal("no container runs collect")
			}
			if !hasMount(collect.VolumeMounts, volumeMount{Name: hostRoot, MountPath: "/host", ReadOnly: true}) {
				t.Errorf("container %s does not mount the host root read-only at /host", collect.Name)
			}
			args := append(slices.Clone(collect.Command[1:]), collect.Args...)
			if i := slices.Index(args, "--root"); !(i >= 0 && i+1 < len(args) && args[i+1] == "/host") && !slices.Contains(args, "--root=/host") {
				t.Errorf("collect arguments %q do not include --root /host", args)
			}
			if !slices.Contains(args, "--host-namespaces") {
				t.Errorf("collect arguments %q lack --host-namespaces: with hostPID and hostNetwork, commands describe the node", args)
			}
			if i := slices.Index(args, "--output"); i < 0 || i+1 >= len(args) || strings.HasPrefix(args[i+1], "/host") {
				t.Errorf("collect must write --output outside the read-only /host, got %q", args)
			}
		})
	}
}

func hasMount(mounts []volumeMount, want volumeMount) bool {
	return slices.Contains(mounts, want)
}

// TestKubernetesReadmeNamesTheManifests keeps deploy/k8s/README.md and the
// manifests next to it in step.
func TestKubernetesReadmeNamesTheManifests(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(manifestDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	for _, f := range files {
		if !strings.Contains(string(readme), filepath.Base(f)) {
			t.Errorf("deploy/k8s/README.md does not mention %s", filepath.Base(f))
		}
	}
	if !strings.Contains(string(readme), "kubectl debug node/") {
		t.Error("deploy/k8s/README.md lacks the kubectl debug node/ example")
	}
}
