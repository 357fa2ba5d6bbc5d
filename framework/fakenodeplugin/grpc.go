package fakenodeplugin

import (
	"context"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec
	"google.golang.org/grpc/mem"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/pluginapi/v1alpha1"
)

// serveGRPC answers PodAdmission.Admit on a loopback port, written into
// c.Entry, until ctx ends.
func serveGRPC(ctx context.Context, c childConfig) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var opts []grpc.ServerOption
	if c.Plugin.Behaviour.Action == Garbage {
		opts = append(opts, grpc.ForceServerCodecV2(garbageCodec{}))
	}
	srv := grpc.NewServer(opts...)
	pluginapi.RegisterPodAdmissionServer(srv, &grpcPlugin{config: c})
	if err := writeAtomically(c.Entry, []byte(l.Addr().String()+"\n"), 0o644); err != nil {
		return err
	}
	if err := markReady(c); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		srv.Stop()
	}()
	if err := srv.Serve(l); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

type grpcPlugin struct {
	pluginapi.UnimplementedPodAdmissionServer
	config childConfig
}

func (p *grpcPlugin) Admit(ctx context.Context, req *pluginapi.AdmitRequest) (*pluginapi.AdmitResult, error) {
	inv, err := received(p.config, req.GetPod())
	if err != nil {
		return nil, err
	}
	b := p.config.Plugin.Behaviour
	pause(b.Delay.Duration, ctx.Done())
	if b.Action == Crash || b.Action == Exit {
		die(b)
	}
	a := b.answer() // Garbage: the codec replaces whatever is sent
	defer func() { _ = answered(p.config, inv) }()
	return &pluginapi.AdmitResult{Admit: a.Admit, Reason: a.Reason, Message: a.Message}, nil
}

// garbageCodec decodes requests as protobuf but sends bytes that do not
// decode as any protobuf message.
type garbageCodec struct{}

var protoCodec = encoding.GetCodecV2("proto")

func (garbageCodec) Name() string { return protoCodec.Name() }

func (garbageCodec) Marshal(any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(append([]byte(nil), garbage...))}, nil
}

func (garbageCodec) Unmarshal(data mem.BufferSlice, v any) error { return protoCodec.Unmarshal(data, v) }
