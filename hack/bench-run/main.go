// Command bench-run measures the full conformance run on the embedded
// cluster one spec after another (--parallel 1) and in parallel (--parallel
// N), one run at a time, and prints each wall time, the time from the
// process's start to its first spec, the cases' states, and the ratio of the
// medians. `make bench-run` runs it (BENCH_RUNS=3 for medians over three).
//
// Each parallel run starts with the serial run's results.json in its report
// dir, as a second `make conformance` would: the parallel run orders its
// specs longest first by those durations.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

type measured struct {
	mode      string
	wall      time.Duration
	firstSpec time.Duration
	exit      int
	summary   results.Summary
}

func main() {
	bin := flag.String("bin", "_output/run-conformance", "the run-conformance binary")
	runs := flag.Int("runs", 1, "how many serial and parallel runs (medians over them)")
	parallel := flag.Int("parallel", 0, "--parallel of the parallel runs (0: the binary's default for this machine)")
	keep := flag.String("keep", "", "keep each run's reports under this dir (default: a temp dir, removed)")
	flag.Parse()
	extra := flag.Args()

	dir := *keep
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail(err)
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "bench-run-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	var serial, par []measured
	for i := 1; i <= *runs; i++ {
		sDir := filepath.Join(dir, fmt.Sprintf("serial-%d", i))
		s := runOnce(*bin, "serial", sDir, append([]string{"--parallel", "1"}, extra...))
		report(i, s)
		serial = append(serial, s)

		pDir := filepath.Join(dir, fmt.Sprintf("parallel-%d", i))
		if err := os.MkdirAll(pDir, 0o755); err != nil {
			fail(err)
		}
		if data, err := os.ReadFile(filepath.Join(sDir, results.FileName)); err == nil {
			_ = os.WriteFile(filepath.Join(pDir, results.FileName), data, 0o644)
		}
		p := runOnce(*bin, "parallel", pDir, append([]string{"--parallel", fmt.Sprint(*parallel)}, extra...))
		report(i, p)
		par = append(par, p)
	}
	ms, mp := median(serial, wallOf), median(par, wallOf)
	fmt.Printf("\nmedian over %d run(s): serial %.1fs (first spec after %.1fs), parallel %.1fs (first spec after %.1fs); parallel is %.2fx faster\n",
		*runs, ms.Seconds(), median(serial, firstOf).Seconds(), mp.Seconds(), median(par, firstOf).Seconds(), ms.Seconds()/mp.Seconds())
	for _, m := range append(serial, par...) {
		if m.exit != 0 {
			os.Exit(1)
		}
	}
}

// runOnce runs the binary and times it.
func runOnce(bin, mode, reportDir string, args []string) measured {
	cmd := exec.Command(bin, append([]string{"run", "--report-dir", reportDir}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	m := measured{mode: mode}
	log, err := os.Create(reportDir + "-stdout.log")
	if err != nil {
		fail(err)
	}
	defer log.Close()
	started := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	sc := bufio.NewScanner(io.TeeReader(stdout, log))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		// Both kinds of run print it as the first case starts.
		if m.firstSpec == 0 && strings.HasPrefix(sc.Text(), "running ") && strings.HasSuffix(sc.Text(), " spec case(s)") {
			m.firstSpec = time.Since(started)
		}
	}
	err = cmd.Wait()
	m.wall = time.Since(started)
	if ee, ok := err.(*exec.ExitError); ok {
		m.exit = ee.ExitCode()
	} else if err != nil {
		fail(err)
	}
	if res, err := results.Read(filepath.Join(reportDir, results.FileName)); err == nil {
		m.summary = res.Summary
	}
	return m
}

func report(i int, m measured) {
	s := m.summary
	fmt.Printf("run %d %-8s wall %6.1fs  first spec after %5.1fs  exit %d  %d passed, %d failed, %d skipped, %d not supported\n",
		i, m.mode, m.wall.Seconds(), m.firstSpec.Seconds(), m.exit, s.Passed, s.Failed, s.Skipped, s.NotSupported)
}

func wallOf(m measured) time.Duration  { return m.wall }
func firstOf(m measured) time.Duration { return m.firstSpec }

func median(ms []measured, of func(measured) time.Duration) time.Duration {
	var d []time.Duration
	for _, m := range ms {
		d = append(d, of(m))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) == 0 {
		return 0
	}
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-run:", err)
	os.Exit(2)
}
