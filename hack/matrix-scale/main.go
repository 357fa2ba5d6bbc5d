// Command matrix-scale measures `run-conformance matrix` over N kind
// clusters created at once, for each N given: the matrix's wall time and
// exit code, what the harness's own processes on this host cost (the
// matrix process and its target clients: peak resident memory of the
// process tree, CPU seconds), and what the whole host spent, kind's node
// containers included (CPU busy share, memory in use above the baseline).
//
//	go run ./hack/matrix-scale -bin _output/run-conformance -node-image IMG [-suites ordering,webhooks] 2 3
//	make matrix-scale MATRIX_SIZES="2 3"
//
// Each matrix goes to DIR/N-targets/; the table goes to stdout and to
// DIR/scale.txt.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "_output/run-conformance", "the harness binary")
	image := flag.String("node-image", "", "kind node image of every target (make kind-image)")
	suites := flag.String("suites", "", "suites each target runs (default all)")
	dir := flag.String("dir", "_artifacts/matrix-scale", "where the matrices and scale.txt go")
	topology := flag.String("topology", "single", "kind topology of every target")
	flag.Parse()
	if *image == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "matrix-scale: give -node-image IMAGE and the target counts, e.g. 2 3")
		os.Exit(2)
	}
	var sizes []int
	for _, a := range flag.Args() {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "matrix-scale: target count %q is not a positive number\n", a)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "matrix-scale:", err)
		os.Exit(2)
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "%s, %d CPUs, %.1f GiB; targets: kind %s, node image %s, suites %q\n", time.Now().Format(time.RFC3339),
		runtime.NumCPU(), float64(memTotal())/(1<<30), *topology, *image, *suites)
	fmt.Fprintln(&table, "targets  wall     exit  harness peak RSS  harness CPU  host CPU busy (avg/peak)  host memory above baseline (peak)")
	os.Stdout.Write(table.Bytes())
	for _, n := range sizes {
		row, err := measure(*bin, *image, *suites, *topology, filepath.Join(*dir, fmt.Sprintf("%d-targets", n)), n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "matrix-scale:", err)
			os.Exit(2)
		}
		fmt.Print(row)
		table.WriteString(row)
	}
	_ = os.WriteFile(filepath.Join(*dir, "scale.txt"), table.Bytes(), 0o644)
}

// measure runs one matrix of n targets and samples the host every 500 ms.
func measure(bin, image, suites, topology, dir string, n int) (string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var spec strings.Builder
	fmt.Fprintf(&spec, "kind: Matrix\ndir: %s\nparallel: %d\nrun:\n  bounds: {clusterStart: 15m}\n", filepath.Join(dir, "matrix"), n)
	if suites != "" {
		fmt.Fprintf(&spec, "  suites: [%s]\n", suites)
	}
	spec.WriteString("targets:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&spec, "- name: t%d\n  kind: {topology: %s, nodeImage: %s}\n", i, topology, image)
	}
	file := filepath.Join(dir, "matrix.yaml")
	if err := os.WriteFile(file, []byte(spec.String()), 0o644); err != nil {
		return "", err
	}
	log, err := os.Create(filepath.Join(dir, "matrix.log"))
	if err != nil {
		return "", err
	}
	defer log.Close()
	cmd := exec.Command(bin, "matrix", "-f", file)
	cmd.Stdout, cmd.Stderr = log, log
	baseBusy, baseTotal := cpuTicks()
	baseMem := memUsed()
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", bin, err)
	}
	done := make(chan struct{})
	var peakRSS, peakMem int64
	var peakBusy float64
	go func() {
		defer close(done)
		_ = cmd.Wait()
	}()
	prevBusy, prevTotal := baseBusy, baseTotal
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			peakRSS = max(peakRSS, treeRSS(cmd.Process.Pid))
			peakMem = max(peakMem, memUsed()-baseMem)
			b, t := cpuTicks()
			if t > prevTotal {
				peakBusy = max(peakBusy, float64(b-prevBusy)/float64(t-prevTotal))
			}
			prevBusy, prevTotal = b, t
		}
	}
	wall := time.Since(started)
	busy, total := cpuTicks()
	avgBusy := float64(busy-baseBusy) / float64(max(total-baseTotal, 1))
	usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	harnessCPU := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
	return fmt.Sprintf("%-8d %-8s %-5d %-17s %-12s %-25s %s\n", n, wall.Round(time.Second), cmd.ProcessState.ExitCode(),
		fmt.Sprintf("%d MiB", peakRSS>>20), harnessCPU.Round(100*time.Millisecond),
		fmt.Sprintf("%.0f%% / %.0f%%", 100*avgBusy, 100*peakBusy), fmt.Sprintf("%.1f GiB", float64(peakMem)/(1<<30))), nil
}

// treeRSS is the resident memory of pid and its descendants.
func treeRSS(root int) int64 {
	children := map[int][]int{}
	rss := map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state ppid ...
		// rss is the 24th field of the line (22nd after the parenthesis).
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		children[ppid] = append(children[ppid], pid)
		rss[pid] = pages * int64(os.Getpagesize())
	}
	var sum int64
	for stack := []int{root}; len(stack) > 0; {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		sum += rss[p]
		stack = append(stack, children[p]...)
	}
	return sum
}

// cpuTicks returns the host's busy and total CPU ticks (/proc/stat).
func cpuTicks() (busy, total int64) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan()
	fields := strings.Fields(s.Text())[1:]
	for i, v := range fields {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

func meminfo(key string) int64 {
	data, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, key+":") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func memTotal() int64 { return meminfo("MemTotal") }
func memUsed() int64  { return meminfo("MemTotal") - meminfo("MemAvailable") }
