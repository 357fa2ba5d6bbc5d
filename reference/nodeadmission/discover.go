package nodeadmission

import (
	"os"
	"path/filepath"
)

// discover finds plugin p in binDir and returns how to call it, or a
// pluginError with ReasonPluginNotFound.
func discover(binDir string, p *AdmissionPlugin) (invoker, error) {
	path := filepath.Join(binDir, p.Name)
	info, err := os.Stat(path)
	if err != nil {
		return nil, notFound("is not in the plugin directory: %v", err)
	}
	switch p.Type {
	case PluginTypeShell:
		if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			return nil, notFound("is not an executable file (%s)", info.Mode())
		}
		return shellInvoker(p.Name, path), nil
	case PluginTypeGRPC:
		if !info.Mode().IsRegular() {
			return nil, notFound("is not a file holding a local port (%s)", info.Mode())
		}
		return grpcInvoker(path), nil
	case PluginTypeSocket:
		if info.Mode()&os.ModeSocket == 0 {
			return nil, notFound("is not a Unix socket (%s)", info.Mode())
		}
		return socketInvoker(path), nil
	}
	return nil, notFound("has unknown type %q", p.Type)
}
