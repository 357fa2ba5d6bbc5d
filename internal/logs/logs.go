// Package logs keeps the in-process Kubernetes components' output (klog) out
// of the harness's own output. klog is process-global, so the entry points
// call this once.
package logs

import (
	"flag"
	"io"

	"k8s.io/klog/v2"
)

// RedirectComponents sends every klog line to w and nothing to stderr.
func RedirectComponents(w io.Writer) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("skip_headers", "false")
	klog.SetOutput(w)
}
