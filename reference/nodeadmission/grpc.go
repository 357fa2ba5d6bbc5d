package nodeadmission

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/pluginapi/v1alpha1"
)

// grpcAddress reads a grpc plugin's entry: a loopback host:port or a port.
// Only local ports are accepted (seed 004: "Local port on the host").
func grpcAddress(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", notFound("has no readable address file: %v", err)
	}
	addr := strings.TrimSpace(string(data))
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		addr = net.JoinHostPort("127.0.0.1", addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", notFound("has an address file that holds %q, not host:port", clip([]byte(addr)))
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", notFound("has address %s, which is not a local port", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// grpcInvoker calls PodAdmission.Admit at the address in the file at path.
// It connects for every call: a plugin that restarts on another port is
// found again, and nothing is held between admissions.
func grpcInvoker(path string) invoker {
	return func(ctx context.Context, pod []byte) (AdmitResult, error) {
		addr, err := grpcAddress(path)
		if err != nil {
			return AdmitResult{}, err
		}
		codec := &watchedCodec{}
		conn, err := grpc.NewClient("passthrough:///"+addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec)))
		if err != nil {
			return AdmitResult{}, failed("could not be dialled at %s: %v", addr, err)
		}
		defer conn.Close()
		answer, err := pluginapi.NewPodAdmissionClient(conn).Admit(ctx, &pluginapi.AdmitRequest{Pod: pod}, grpc.WaitForReady(false))
		if err != nil {
			if codec.undecodable.Load() {
				return AdmitResult{}, invalid("answered something that is not an AdmitResult: %v", err)
			}
			// gRPC ends a call whose deadline passed with DeadlineExceeded,
			// sometimes a moment before ctx says so; failed() would keep
			// only its text, and rejection could no longer see the timeout.
			if status.Code(err) == codes.DeadlineExceeded {
				return AdmitResult{}, fmt.Errorf("call to %s: %w (%v)", addr, context.DeadlineExceeded, err)
			}
			return AdmitResult{}, failed("call to %s failed: %v", addr, err)
		}
		r := AdmitResult{Admit: answer.GetAdmit(), Reason: answer.GetReason(), Message: answer.GetMessage()}
		if err := checkResult(r); err != nil {
			return AdmitResult{}, invalid("%v", err)
		}
		return r, nil
	}
}

// watchedCodec is gRPC's proto codec, noting when an answer does not
// decode: gRPC reports that as a plain Internal error, and the host must tell
// "garbage" from "unreachable".
type watchedCodec struct{ undecodable atomic.Bool }

var protoCodec = encoding.GetCodecV2("proto")

func (c *watchedCodec) Name() string { return protoCodec.Name() }

func (c *watchedCodec) Marshal(v any) (mem.BufferSlice, error) { return protoCodec.Marshal(v) }

func (c *watchedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if err := protoCodec.Unmarshal(data, v); err != nil {
		c.undecodable.Store(true)
		return err
	}
	return nil
}
