package kubeconfig

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// TestRelayPodIsRestricted: the relay pod (--plugin-image) runs as
// non-root with a read-only root filesystem, no privilege escalation,
// every capability dropped and the runtime's default seccomp profile,
// holds no service account token, and the restricted Pod Security level,
// as the admission plugin evaluates it, admits it.
func TestRelayPodIsRestricted(t *testing.T) {
	pod := relayPod("registry.example/run-conformance:v1", map[string]string{RunLabel: "relay-x"})
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) != 0 {
		t.Fatalf("containers %+v", pod.Spec.Containers)
	}
	sc := pod.Spec.Containers[0].SecurityContext
	switch {
	case sc == nil:
		t.Fatal("no security context")
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Error("runAsNonRoot is not true")
	case sc.RunAsUser == nil || *sc.RunAsUser == 0:
		t.Error("runs as root")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem is not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
		t.Errorf("capabilities %+v: want drop ALL, add none", sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("seccomp %+v", sc.SeccompProfile)
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("privileged")
	}
	if pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
		t.Error("the relay mounts a service account token it has no use for")
	}
	if pod.Spec.HostNetwork || pod.Spec.HostPID || pod.Spec.HostIPC || len(pod.Spec.Volumes) != 0 {
		t.Errorf("host namespaces or volumes: %+v", pod.Spec)
	}
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range eval.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &pod.ObjectMeta, &pod.Spec) {
		if !r.Allowed {
			t.Errorf("restricted refuses the relay pod: %s: %s", r.ForbiddenReason, r.ForbiddenDetail)
		}
	}
}
