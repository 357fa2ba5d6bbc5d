package nodeset

import (
	"flag"
	"strconv"

	"k8s.io/klog/v2"
)

// setKlogVerbosity sends a child's klog output to its stderr (the parent
// files it under the node's name in the component log) at level v.
func setKlogVerbosity(v int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "true")
	_ = fs.Set("v", strconv.Itoa(v))
}
