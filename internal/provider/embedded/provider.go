// Package embedded is the default cluster provider: a real control plane
// (etcd, kube-apiserver replicas, kube-scheduler, kube-controller-manager)
// running inside the harness's own process on loopback, with every file in
// one temp dir that Stop removes. No Docker, no root.
package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// Name is the provider's name on the command line.
const Name = "embedded"

// DirPrefix starts the name of every run's temp dir, so a leftover check can
// find the dirs of runs that were killed.
const DirPrefix = rundir.EmbeddedPrefix

// Provider starts embedded clusters.
type Provider struct{ opts settings }

// New returns an embedded provider.
func New(opts ...Option) *Provider {
	o := defaultSettings()
	for _, opt := range opts {
		opt.apply(&o)
	}
	return &Provider{opts: o}
}

// Name implements cluster.Provider.
func (p *Provider) Name() string { return Name }

// Start implements cluster.Provider. On any failure it stops what it started
// and removes its temp dir before returning an error naming the component.
func (p *Provider) Start(ctx context.Context) (_ cluster.Cluster, err error) {
	o := p.opts
	if o.apiservers < 1 {
		return nil, fmt.Errorf("embedded: --apiservers must be at least 1, got %d", o.apiservers)
	}
	for replica := range o.etcdDelays {
		if replica < 0 || replica >= o.apiservers {
			return nil, fmt.Errorf("embedded: etcd delay for replica %d, but replicas are 0 to %d", replica, o.apiservers-1)
		}
	}
	dir, err := rundir.Create(o.baseDir, DirPrefix)
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	c := &Cluster{dir: dir, apiserverCount: o.apiservers}
	// step is what is starting now, for the error a panic becomes: a panic
	// in start-up code is a bug, but it must still roll back the start.
	step := "owner file"
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(o.componentLog, "embedded: panic while starting %s: %v\n%s", step, r, debug.Stack())
			err = fmt.Errorf("embedded: start %s: panic: %v", step, r)
		}
		if err != nil {
			_ = c.Stop(context.Background())
		}
	}()
	log := o.logger
	started := time.Now()

	step = "certificates"
	files, err := writePKI(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded: certificates: %w", err)
	}
	step = "etcd"
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embedded: start etcd: %w", err)
	}
	if c.etcd, err = startEtcd(dir, o.startTimeout, zapSink(o.componentLog)); err != nil {
		return nil, fmt.Errorf("embedded: start etcd: %w", err)
	}
	log.V(1).Info("etcd ready", "elapsed", time.Since(started))

	baseConfig := &rest.Config{
		TLSClientConfig: rest.TLSClientConfig{CAFile: files.caCert, CertFile: files.adminCert, KeyFile: files.adminKey},
		QPS:             200,
		Burst:           400,
	}
	// Static admission manifests are set up only where the apiservers will
	// accept them: a staticManifestsDir the release does not know or has
	// off makes the apiserver refuse to start.
	static := staticManifestsOn(append(apiserverFlags(files, ""), o.apiserverArgs...))
	c.balanced = balancedPerRequest(append(apiserverFlags(files, ""), o.apiserverArgs...))
	for i := 0; i < o.apiservers; i++ {
		name := fmt.Sprintf("kube-apiserver[%d]", i)
		step = name
		if i == 0 {
			testhook.Panic(testhook.EmbeddedStart)
		}
		auditLog := filepath.Join(dir, fmt.Sprintf("audit-%d.log", i))
		flags := apiserverFlags(files, auditLog)
		if static {
			dirs, flag, err := setUpStatic(dir, i)
			if err != nil {
				return nil, fmt.Errorf("embedded: static manifests for %s: %w", name, err)
			}
			c.staticDirs = append(c.staticDirs, dirs)
			flags = append(flags, flag)
		}
		flags = append(flags, o.apiserverArgs...)
		tb := &componentTB{name: name, tempDir: dir, log: o.componentLog}
		etcdURL := c.etcd.clientURL
		if delay, ok := o.etcdDelays[i]; ok {
			proxy, err := startDelayProxy(hostPort(etcdURL), delay)
			if err != nil {
				return nil, fmt.Errorf("embedded: start etcd delay proxy for %s: %w", name, err)
			}
			c.delays = append(c.delays, proxy)
			etcdURL = proxy.url()
		}
		var a *apiServer
		withTempDir(dir, func() { a, err = startAPIServer(ctx, tb, etcdURL, flags) })
		if err != nil {
			return nil, fmt.Errorf("embedded: start %s: %w", name, err)
		}
		a.auditLog = auditLog
		c.apiservers = append(c.apiservers, a)
		c.replicas = append(c.replicas, a.restConfig(baseConfig))
		if static {
			// The first requests this replica serves, before anything else
			// (the next replica, the load balancer, the controllers) runs.
			probe, err := staticmanifest.Probe(ctx, c.replicas[i])
			if err != nil {
				return nil, fmt.Errorf("embedded: static manifests boot probe of %s: %w", name, err)
			}
			c.staticProbes = append(c.staticProbes, probe)
		}
		log.V(1).Info("apiserver ready", "replica", i, "elapsed", time.Since(started))
	}

	c.config = c.replicas[0]
	if len(c.replicas) > 1 {
		step = "load balancer"
		backends := make([]string, len(c.apiservers))
		for i, a := range c.apiservers {
			backends[i] = hostPort(a.host)
		}
		if c.lb, err = startLoadBalancer(backends); err != nil {
			return nil, fmt.Errorf("embedded: start load balancer: %w", err)
		}
		c.config = rest.CopyConfig(baseConfig)
		c.config.Host = "https://" + c.lb.address()
	}
	step = "kubeconfig"
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, c.config.Host, files); err != nil {
		return nil, fmt.Errorf("embedded: write kubeconfig: %w", err)
	}
	c.kubeconfig = kubeconfig
	if c.served, err = cluster.ServedFeatures(c.config); err != nil {
		return nil, fmt.Errorf("embedded: discovery: %w", err)
	}

	// The scheduler and the controller manager start side by side.
	type result struct {
		name string
		err  error
	}
	results := make(chan result, 2)
	// A panic in these goroutines would end the process: each becomes the
	// goroutine's error.
	recovered := func(name string, err *error) {
		if r := recover(); r != nil {
			fmt.Fprintf(o.componentLog, "embedded: panic while starting %s: %v\n%s", name, r, debug.Stack())
			*err = fmt.Errorf("panic: %v", r)
		}
		results <- result{name, *err}
	}
	go func() {
		var err error
		defer recovered("kube-scheduler", &err)
		if !o.noScheduler {
			c.scheduler, err = startScheduler(ctx, kubeconfig)
		}
	}()
	go func() {
		var err error
		defer recovered("kube-controller-manager", &err)
		if !o.noControllers {
			client, cerr := kubernetes.NewForConfig(c.config)
			if cerr != nil {
				err = cerr
				return
			}
			c.controllers, err = startControllerManager(ctx, kubeconfig, files.caCert, files.caKey, client, o.poll, o.startTimeout)
		}
	}()
	var firstErr error
	for i := 0; i < 2; i++ {
		if r := <-results; r.err != nil && firstErr == nil {
			firstErr = fmt.Errorf("embedded: start %s: %w", r.name, r.err)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	c.scheduled, c.controlled = !o.noScheduler, !o.noControllers
	step = "nodes"
	if err := c.startNodes(ctx, o, files); err != nil {
		return nil, fmt.Errorf("embedded: start nodes: %w", err)
	}
	for _, d := range c.delays {
		d.enable()
	}
	log.V(1).Info("cluster ready", "elapsed", time.Since(started))
	return c, nil
}

// apiserverFlags are the flags every replica gets: one serving certificate
// and one client CA for all replicas (so one rest config reaches any of them
// through the load balancer), RBAC, and a Metadata-level audit log so specs
// can read admission audit annotations.
func apiserverFlags(f pkiFiles, auditLog string) []string {
	return []string{
		"--client-ca-file=" + f.caCert,
		"--tls-cert-file=" + f.servingCert,
		"--tls-private-key-file=" + f.servingKey,
		"--authorization-mode=Node,RBAC",
		"--audit-policy-file=" + f.auditPolicy,
		"--audit-log-path=" + auditLog,
		"--audit-log-format=json",
		// There is no service network (kube-proxy): a webhook named by a
		// Service is called at one of the Service's endpoints, as the
		// aggregator calls aggregated APIs.
		"--enable-aggregator-routing=true",
		// The mixed-version proxy (beta, on in 1.36) would make the test
		// server point its peer CA at a self-signed certificate it does not
		// generate when a serving certificate is given. Every replica runs
		// the same version, so the proxy has nothing to do here.
		"--feature-gates=UnknownVersionInteroperabilityProxy=false",
	}
}

// withTempDir points the process temp dir at dir while f runs: upstream's
// test server creates its work dir with os.MkdirTemp(""), and its files must
// stay inside the run's dir. Replicas start one after another, so nothing
// else in the harness creates temp files meanwhile.
func withTempDir(dir string, f func()) {
	old, had := os.LookupEnv("TMPDIR")
	_ = os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			_ = os.Setenv("TMPDIR", old)
		} else {
			_ = os.Unsetenv("TMPDIR")
		}
	}()
	f()
}

// pkiFiles are the certificate files of one embedded cluster.
type pkiFiles struct {
	caCert, servingCert, servingKey, adminCert, adminKey, auditPolicy string
	// caKey lets the controller manager sign CertificateSigningRequests
	// (kubernetes.io/kube-apiserver-client and the kubelet signers) with
	// the CA the apiserver trusts, as kubeadm's clusters do.
	caKey string
	// ca signs the nodes' client certificates.
	ca *pki.CA
}

func writePKI(dir string) (pkiFiles, error) {
	var f pkiFiles
	ca, err := pki.NewCA("admission-conformance-embedded-ca")
	if err != nil {
		return f, err
	}
	f.ca = ca
	f.caCert = filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(f.caCert, ca.CertPEM(), 0o644); err != nil {
		return f, err
	}
	key, err := ca.KeyPEM()
	if err != nil {
		return f, err
	}
	f.caKey = filepath.Join(dir, "ca.key")
	if err := os.WriteFile(f.caKey, key, 0o600); err != nil {
		return f, err
	}
	serving, err := ca.Serving("kube-apiserver", "127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "10.0.0.1")
	if err != nil {
		return f, err
	}
	if f.servingCert, f.servingKey, err = serving.Write(dir, "apiserver"); err != nil {
		return f, err
	}
	admin, err := ca.Client("admission-conformance-admin", "system:masters")
	if err != nil {
		return f, err
	}
	if f.adminCert, f.adminKey, err = admin.Write(dir, "admin"); err != nil {
		return f, err
	}
	f.auditPolicy = filepath.Join(dir, "audit-policy.yaml")
	return f, os.WriteFile(f.auditPolicy, []byte(audit.Policy), 0o644)
}
