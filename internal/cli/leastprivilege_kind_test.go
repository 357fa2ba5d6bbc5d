package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/accesstest"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// TestLeastPrivilegeOnKind shows on a real kind cluster that the harness
// needs no more than the rights it prints (issue 40):
//   - the service account an in-cluster run creates may do what the
//     preflight lists and, by the cluster's own authorizer, nothing of what
//     no run needs (impersonating system:masters, reading secrets, other
//     cluster-scoped writes);
//   - a user bound to exactly the printed rights runs the full selection
//     with every case in the state an admin's run gave it, but for the
//     cases of an identity outside the harness's own (not supported, the
//     right named);
//   - a user lacking one printed right gets one line naming it, exit 2, and
//     nothing is created;
//   - an in-cluster run under a service account the user manages, bound to
//     exactly the printed rights, passes and creates no RBAC object.
func TestLeastPrivilegeOnKind(t *testing.T) {
	image := kindImage(t)
	path, gateway, c := kindCluster(t, image, kind.Single)
	name := c.(interface{ Name() string }).Name()
	ref := "admission-conformance/run-conformance:kind-test"
	loadImage(t, name, harnessArchive(t, ref))
	settle(t, c)
	ctx := context.Background()
	admin, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	needed := access.Needed(false, spec.All())
	_, optional := access.ForSpecs(spec.All())
	// The kubeconfig runs place pods on the cluster's nodes, so the node
	// specs (which change nodes and create a RuntimeClass) run under the
	// user's rights too.
	var nodeNames []string
	for _, n := range c.Nodes() {
		nodeNames = append(nodeNames, n.Name)
	}
	onNodes := []string{"--node-admission-nodes", strings.Join(nodeNames, ",")}

	t.Run("the in-cluster run's service account holds the preflight list and nothing no run needs", func(t *testing.T) {
		before := inventory(t, c)
		// The objects run --in-cluster creates, with an image no node can
		// pull: the account exists and its pod never runs.
		r, err := clusterrun.New(harness.NewRunID(), "registry.invalid/run-conformance:none",
			clusterrun.WithSpecs(spec.All()), clusterrun.WithOptions(func(clusterrun.PodRole) ([]byte, error) { return []byte("{}"), nil }))
		if err != nil {
			t.Fatal(err)
		}
		if err := clusterrun.Create(ctx, admin, r, logr.Discard()); err != nil {
			t.Fatal(err)
		}
		defer func() {
			dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			if err := clusterrun.Delete(dctx, admin, r.ID, r.NamespaceName(), nil, logr.Discard()); err != nil {
				t.Error(err)
			}
			waitUnchanged(t, c, before)
		}()
		subject := *clusterrun.Account{Namespace: r.NamespaceName(), Name: r.ServiceAccountName()}.Subject()
		if err := accesstest.AwaitGranted(ctx, admin, subject, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		rep, err := accesstest.Check(ctx, admin, subject, r.PodAccess())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Problems {
			t.Error(p)
		}
		t.Logf("%s: %d rights granted; %d denials and %d cluster-scoped writes checked", subject.User, rep.Granted, rep.Denials, rep.ClusterWrites)
	})

	// The admin's run: what every case should be for the user who holds
	// the printed rights.
	base := inventory(t, c)
	adminDir := t.TempDir()
	started := time.Now()
	r := runCLI(t, append([]string{"run", "--provider", "kubeconfig", "--kubeconfig", path, "--webhook-host", gateway, "--report-dir", adminDir}, onNodes...)...)
	t.Logf("admin run: %.0fs, exit %d\n%s", time.Since(started).Seconds(), r.code, tail(r.stdout, 3))
	adminRes := readResults(t, adminDir)
	if r.code != 0 {
		t.Fatalf("the admin's run failed: exit %d: %s\n%s%s", r.code, failedCases(adminRes), tail(r.stdout, 5), r.stderr)
	}
	// The node specs ran: those that fill or taint a node or create a
	// RuntimeClass (on the provider's own node) and one on the others. (The
	// kubeconfig provider does not declare NodeDeclaredFeatures, a feature
	// of the release, so the relabelling and declared-features specs are
	// not supported here.)
	expectStates(t, adminRes, []string{"KubeletAdmitsUpToAllocatable", "KubeletRejectsTaintToleration", "KubeletRejectsOutOfPods",
		"KubeletRejectsNodePorts"}, results.Passed, "")
	// Each run below starts from the cluster as it was: the spec
	// namespaces of the one before go a moment after it ends.
	waitUnchanged(t, c, base)

	t.Run("a user bound to exactly the printed rights runs what the admin runs", func(t *testing.T) {
		user := userKubeconfig(t, c.RESTConfig(), "admission-conformance:exact-rights", needed)
		before := inventory(t, c)
		dir := t.TempDir()
		started := time.Now()
		r := runCLI(t, append([]string{"run", "--provider", "kubeconfig", "--kubeconfig", user, "--webhook-host", gateway, "--report-dir", dir}, onNodes...)...)
		t.Logf("exact-rights run: %.0fs, exit %d\n%s", time.Since(started).Seconds(), r.code, tail(r.stdout, 3))
		if r.code != 0 {
			t.Errorf("exit %d: %s\n%s", r.code, r.stderr, tail(r.stdout, 40))
		}
		waitUnchanged(t, c, before)
		same, diff := compareWithAdmin(adminRes, readResults(t, dir), optional)
		for _, d := range diff {
			t.Error(d)
		}
		t.Logf("%d of %d cases in the admin run's state", same, len(adminRes.Specs))
	})

	t.Run("a user lacking one printed right: one line naming it, exit 2, nothing created", func(t *testing.T) {
		i := slices.IndexFunc(needed, func(a access.Access) bool { return a.Verb == "impersonate" })
		missing := needed[i]
		user := userKubeconfig(t, c.RESTConfig(), "admission-conformance:one-right-short", slices.Delete(slices.Clone(needed), i, i+1))
		before := inventory(t, c)
		r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", user, "--webhook-host", gateway, "--report-dir", t.TempDir())
		r.mustExit(t, 2)
		line := strings.TrimSpace(r.stderr)
		if !strings.Contains(line, missing.String()) || strings.Contains(line, "\n") {
			t.Errorf("stderr %q, want one line naming %q", line, missing.String())
		}
		t.Logf("without %s: exit %d: %s", missing, r.code, line)
		if added, removed := before.Diff(inventory(t, c)); len(added)+len(removed) > 0 {
			t.Errorf("the refused run changed the cluster: added %v, removed %v", added, removed)
		}
	})

	t.Run("an in-cluster run under the user's service account holding exactly the printed rights", func(t *testing.T) {
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: accountNS}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		bindAccount(t, admin, "exact", needed)
		rbacBefore := rbacAndAccounts(t, admin)
		before := inventory(t, c)
		dir := t.TempDir()
		started := time.Now()
		r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--in-cluster", "--image", ref,
			"--service-account", accountNS+"/exact", "--report-dir", dir)
		t.Logf("in-cluster run under %s/exact: %.0fs, exit %d\n%s", accountNS, time.Since(started).Seconds(), r.code, tail(r.stdout, 8))
		checkInClusterReports(t, r, dir)
		waitUnchanged(t, c, before) // spec namespaces go a moment after the run
		if after := rbacAndAccounts(t, admin); !slices.Equal(after, rbacBefore) {
			t.Errorf("the run changed RBAC objects, service accounts or namespaces: before %q, after %q", rbacBefore, after)
		}
		same, diff := compareWithAdmin(adminRes, readResults(t, dir), optional)
		for _, d := range diff {
			t.Error(d)
		}
		t.Logf("%d of %d cases in the admin run's state", same, len(adminRes.Specs))
	})
}

// inventory is what the cluster holds now.
func inventory(t *testing.T, c cluster.Cluster) kubeconfig.Inventory {
	t.Helper()
	inv, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// userKubeconfig binds user to exactly rights (a ClusterRole and its
// binding, removed after the test) and writes a kubeconfig that
// authenticates as user with a client certificate the cluster signed, with
// no group but system:authenticated.
func userKubeconfig(t *testing.T, cfg *rest.Config, user string, rights []access.Access) string {
	t.Helper()
	ctx := context.Background()
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, remove, err := accesstest.BindUser(ctx, admin, user, rights)
	t.Cleanup(func() { remove(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}

	certPEM, keyPEM := clientCertificate(t, admin, user)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["cluster"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	kc.Contexts["user"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: user}
	kc.CurrentContext = "user"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// clientCertificate has the cluster sign a client certificate for user
// (a CertificateSigningRequest for kubernetes.io/kube-apiserver-client,
// approved by the admin, deleted after) and returns it with its key.
func clientCertificate(t *testing.T, admin kubernetes.Interface, user string) (certPEM, keyPEM []byte) {
	t.Helper()
	ctx := context.Background()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: user}}, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	csr, err := admin.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "least-privilege-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName, Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = admin.CertificatesV1().CertificateSigningRequests().Delete(ctx, csr.Name, metav1.DeleteOptions{})
	}()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved,
		Status: corev1.ConditionTrue, Reason: "LeastPrivilegeTest", Message: "the test's user"})
	if _, err := admin.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := admin.CertificatesV1().CertificateSigningRequests().Get(ctx, csr.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Status.Certificate) > 0 {
			return got.Status.Certificate, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not sign %s's certificate within a minute: %+v", user, got.Status.Conditions)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// compareWithAdmin checks a run of a user holding exactly the printed
// rights against the admin's run of the same selection on the same
// cluster: every case in the admin's state, but that the cases that
// impersonate an identity outside the harness's own (optional) are not
// supported, naming the impersonation right.
func compareWithAdmin(admin, user results.Results, optional []access.Optional) (same int, differences []string) {
	user, differences = forgiveOptional(admin, user, optional)
	same, more := compareInClusterWithLocal(admin, user)
	return same, append(differences, more...)
}

// forgiveOptional gives each case of res that is not supported for lack of
// an optional identity's right the state the admin's run gave it, and
// says where an optional identity made no case not supported (the run
// could impersonate it without the right) or a case not supported for it
// belongs to a spec that does not declare it.
func forgiveOptional(admin, res results.Results, optional []access.Optional) (results.Results, []string) {
	key := func(s results.Spec) string { return s.Suite + "/" + s.ShortName + ": " + s.Name }
	adminState := map[string]results.State{}
	for _, s := range admin.Specs {
		adminState[key(s)] = s.State
	}
	var differences []string
	out := res
	out.Specs = slices.Clone(res.Specs)
	for _, o := range optional {
		forgiven := 0
		for i, s := range out.Specs {
			if s.State != results.NotSupported || !strings.Contains(s.Message, "impersonates "+o.Identity.String()) {
				continue
			}
			if !slices.Contains(o.Specs, s.ShortName) {
				differences = append(differences, key(s)+": not supported for "+o.Identity.String()+", which its spec does not declare")
				continue
			}
			if st, ok := adminState[key(s)]; ok {
				out.Specs[i].State = st
				forgiven++
			}
		}
		if forgiven == 0 && ranAny(res, o.Specs) {
			differences = append(differences, "no case of "+strings.Join(o.Specs, ", ")+" was not supported for lack of the right to impersonate "+
				o.Identity.String()+", which the run was not granted")
		}
	}
	return out, differences
}
