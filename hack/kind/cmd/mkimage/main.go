// Command mkimage writes a container image archive (OCI layout plus Docker's
// manifest.json) with internal/image, for the offline node image build:
//
//	mkimage -o pause.tar --ref registry.k8s.io/pause:3.10.2 \
//	  --file /path/to/pause:/pause:0755 --entrypoint /pause
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/image"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var refs, dirs, files, env, volumes, labels list
	out := flag.String("o", "", "output archive (required)")
	entrypoint := flag.String("entrypoint", "", "entrypoint, space-separated")
	cmd := flag.String("cmd", "", "default arguments, space-separated")
	stop := flag.String("stop-signal", "", "stop signal")
	flag.Var(&refs, "ref", "image name with tag, repeatable")
	flag.Var(&dirs, "dir-layer", "directory to add as one layer, repeatable (in order)")
	flag.Var(&files, "file", "SRC:DST[:MODE] to add (all --file go into one layer after the --dir-layer ones)")
	flag.Var(&env, "env", "KEY=VALUE, repeatable")
	flag.Var(&volumes, "volume", "volume path, repeatable")
	flag.Var(&labels, "label", "KEY=VALUE, repeatable")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fail(fmt.Errorf("usage: mkimage -o OUT [--ref REF]... [--dir-layer DIR]... [--file SRC:DST[:MODE]]..."))
	}
	opts := []image.Option{}
	for _, r := range refs {
		opts = append(opts, image.WithRef(r))
	}
	for _, d := range dirs {
		opts = append(opts, image.WithDirLayer(d))
	}
	var layer []image.File
	for _, f := range files {
		parts := strings.Split(f, ":")
		if len(parts) < 2 || len(parts) > 3 {
			fail(fmt.Errorf("--file %q: want SRC:DST[:MODE]", f))
		}
		file := image.File{Source: parts[0], Path: parts[1]}
		if len(parts) == 3 {
			m, err := strconv.ParseUint(parts[2], 8, 32)
			if err != nil {
				fail(fmt.Errorf("--file %q: mode: %v", f, err))
			}
			file.Mode = os.FileMode(m)
		}
		layer = append(layer, file)
	}
	if len(layer) > 0 {
		opts = append(opts, image.WithFiles(layer...))
	}
	if *entrypoint != "" {
		opts = append(opts, image.WithEntrypoint(strings.Fields(*entrypoint)...))
	}
	if *cmd != "" {
		opts = append(opts, image.WithCmd(strings.Fields(*cmd)...))
	}
	if *stop != "" {
		opts = append(opts, image.WithStopSignal(*stop))
	}
	opts = append(opts, image.WithEnv(env...), image.WithVolumes(volumes...))
	for _, l := range labels {
		k, v, _ := strings.Cut(l, "=")
		opts = append(opts, image.WithLabel(k, v))
	}
	res, err := image.WriteFile(*out, opts...)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s %s %s\n", *out, res.Manifest, strings.Join(res.Refs, ","))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mkimage:", err)
	os.Exit(2)
}
