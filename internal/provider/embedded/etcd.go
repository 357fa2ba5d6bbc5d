package embedded

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// etcdServer is an in-process etcd on loopback, tuned to start fast: it holds
// throwaway data, so fsync is off and elections are short.
type etcdServer struct {
	etcd      *embed.Etcd
	clientURL string
}

func startEtcd(dir string, readyTimeout time.Duration, log zapcore.WriteSyncer) (*etcdServer, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}

	cfg := embed.NewConfig()
	cfg.Name = "admission-conformance"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.UnsafeNoFsync = true
	cfg.TickMs = 10
	cfg.ElectionMs = 50
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), log, zapcore.WarnLevel)).Named("etcd"))

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return &etcdServer{etcd: e, clientURL: clientURL.String()}, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("stopped before it was ready: %w", err)
	case <-time.After(readyTimeout):
		e.Close()
		return nil, fmt.Errorf("not ready after %s", readyTimeout)
	}
}

func (s *etcdServer) stop() { s.etcd.Close() }

// freePorts asks the kernel for n unused loopback ports. etcd needs its peer
// and client URLs before it listens, so it cannot be given port 0.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
