package fakenodeplugin

import (
	"context"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec
	"google.golang.org/grpc/mem"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/pluginapi/v1alpha1"
)

// serveGRPC answers PodAdmission.Admit on a loopback port, written into
// c.Entry, until ctx ends.
func serveGRPC(ctx context.Context, c childConfig) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(garbageCodec{}))
	pluginapi.RegisterPodAdmissionServer(srv, &grpcPlugin{config: c})
	if err := atomicfile.Write(c.Entry, []byte(l.Addr().String()+"\n"), 0o644); err != nil {
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
	inv, err := received(p.config, req.GetPod(), os.Getpid())
	if err != nil {
		return nil, err
	}
	b := p.config.Plugin.Behaviour.For(req.GetPod())
	pause(b.Delay.Duration, ctx.Done())
	if ctx.Err() != nil {
		return nil, ctx.Err() // the host gave up: no answer goes out
	}
	if b.Action == Crash || b.Action == Exit {
		die(b)
	}
	defer func() { _ = answered(p.config, inv) }()
	if b.Action == Garbage {
		return garbageAnswer, nil
	}
	a := b.answer()
	return &pluginapi.AdmitResult{Admit: a.Admit, Reason: a.Reason, Message: a.Message}, nil
}

// garbageAnswer stands for "send garbage": the codec sends bytes that do
// not decode as any protobuf message in its place.
var garbageAnswer = &pluginapi.AdmitResult{}

// garbageCodec is the proto codec, except for garbageAnswer.
type garbageCodec struct{}

var protoCodec = encoding.GetCodecV2("proto")

func (garbageCodec) Name() string { return protoCodec.Name() }

func (garbageCodec) Marshal(v any) (mem.BufferSlice, error) {
	if v == garbageAnswer {
		return mem.BufferSlice{mem.SliceBuffer(append([]byte(nil), garbage...))}, nil
	}
	return protoCodec.Marshal(v)
}

func (garbageCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return protoCodec.Unmarshal(data, v)
}
