package image

import (
	"io/fs"
	"runtime"
)

// Option configures Write. Options are sealed.
type Option interface{ apply(*spec) }

type optionFunc func(*spec)

func (f optionFunc) apply(s *spec) { f(s) }

type spec struct {
	refs       []string
	layers     []layerSource
	entrypoint []string
	cmd        []string
	env        []string
	workDir    string
	user       string
	stopSignal string
	volumes    []string
	labels     map[string]string
	arch       string
}

func defaultSpec() spec {
	return spec{arch: runtime.GOARCH, labels: map[string]string{}}
}

// WithRef names the image (e.g. registry.k8s.io/pause:3.10), repeatable.
func WithRef(ref string) Option { return optionFunc(func(s *spec) { s.refs = append(s.refs, ref) }) }

// WithDirLayer adds a layer holding the tree under dir (a root file system),
// with owners and modes as on disk.
func WithDirLayer(dir string) Option {
	return optionFunc(func(s *spec) { s.layers = append(s.layers, layerSource{dir: dir}) })
}

// WithFiles adds a layer holding files, each copied from a host path.
func WithFiles(files ...File) Option {
	return optionFunc(func(s *spec) { s.layers = append(s.layers, layerSource{files: files}) })
}

// File is one file of a WithFiles layer.
type File struct {
	// Path in the image, absolute.
	Path string
	// Source on this host, or Content when Source is empty.
	Source  string
	Content []byte
	Mode    fs.FileMode
}

// WithEntrypoint sets the entrypoint.
func WithEntrypoint(args ...string) Option { return optionFunc(func(s *spec) { s.entrypoint = args }) }

// WithCmd sets the default arguments.
func WithCmd(args ...string) Option { return optionFunc(func(s *spec) { s.cmd = args }) }

// WithEnv adds KEY=VALUE environment entries.
func WithEnv(env ...string) Option {
	return optionFunc(func(s *spec) { s.env = append(s.env, env...) })
}

// WithWorkDir sets the working directory.
func WithWorkDir(dir string) Option { return optionFunc(func(s *spec) { s.workDir = dir }) }

// WithUser sets the user (name or uid[:gid]).
func WithUser(user string) Option { return optionFunc(func(s *spec) { s.user = user }) }

// WithStopSignal sets the stop signal (e.g. SIGRTMIN+3 for systemd).
func WithStopSignal(sig string) Option { return optionFunc(func(s *spec) { s.stopSignal = sig }) }

// WithVolumes declares volumes.
func WithVolumes(paths ...string) Option {
	return optionFunc(func(s *spec) { s.volumes = append(s.volumes, paths...) })
}

// WithLabel sets a label.
func WithLabel(key, value string) Option { return optionFunc(func(s *spec) { s.labels[key] = value }) }

// WithArchitecture overrides the architecture (default: this binary's).
func WithArchitecture(arch string) Option { return optionFunc(func(s *spec) { s.arch = arch }) }
