package embedded

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/utils/ktesting"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
)

// apiServer is one real kube-apiserver, started in-process through upstream's
// own test server so that the wiring is exactly kube-apiserver's.
type apiServer struct {
	tb       *componentTB
	server   apiservertesting.TestServer
	host     string // https://127.0.0.1:PORT
	auditLog string
}

// startAPIServer starts one replica. flags are kube-apiserver flags; later
// flags win, so the caller puts the user's --apiserver-arg values last.
func startAPIServer(ctx context.Context, tb *componentTB, etcdURL string, flags []string) (_ *apiServer, err error) {
	defer func() {
		// StartTestServer reports a few set-up problems through tb.Fatalf.
		if r := recover(); r != nil {
			fatal, ok := r.(errFatal)
			if !ok {
				panic(r)
			}
			tb.runCleanups()
			err = fmt.Errorf("%s", fatal.msg)
		}
	}()
	if err := CheckAPIServerArgs(flags); err != nil {
		return nil, err
	}
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{etcdURL}

	// The server's lifetime context must not be the caller's: a post-start
	// hook that sees it cancelled calls klog.Fatalf, which exits the process.
	// So ctx is only checked before starting, and stop ends the server.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	logger := klog.NewKlogr().WithName(tb.name)
	tCtx := kubecompat.TestServerContext(ktesting.InitCtx(klog.NewContext(context.Background(), logger), tb))

	opts := apiservertesting.NewDefaultTestServerOptions()
	server, err := apiservertesting.StartTestServer(tCtx, opts, flags, storage)
	if err != nil {
		tb.runCleanups()
		return nil, err
	}
	return &apiServer{tb: tb, server: server, host: server.ClientConfig.Host}, nil
}

// restConfig reaches this replica with the given credentials and CA.
func (a *apiServer) restConfig(base *rest.Config) *rest.Config {
	c := rest.CopyConfig(base)
	c.Host = a.host
	return c
}

func (a *apiServer) stop() {
	a.server.TearDownFn()
	a.tb.runCleanups()
}

// CheckAPIServerArgs parses flags the way kube-apiserver would, so that a bad
// --apiserver-arg is a one-line error before anything starts rather than a
// panic and a page of usage inside the test server (which parses with
// PanicOnError).
func CheckAPIServerArgs(flags []string) error {
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, set := range options.NewServerRunOptions().Flags().FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(flags); err != nil {
		return fmt.Errorf("bad kube-apiserver flag: %w", err)
	}
	return nil
}
