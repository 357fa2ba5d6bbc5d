package embedded

import (
	"context"
	"sort"
	"testing"
	"time"
)

// BenchmarkStartStop measures process-start-to-ready and tear-down of the
// default embedded cluster (1 apiserver, scheduler, controller manager) and
// reports the medians: run with -benchtime 5x or more.
//
//	go test -run '^$' -bench StartStop -benchtime 5x ./internal/provider/embedded/
func BenchmarkStartStop(b *testing.B) {
	benchmarkStartStop(b)
}

// BenchmarkStartStopHA is the same with three apiservers.
func BenchmarkStartStopHA(b *testing.B) {
	benchmarkStartStop(b, WithAPIServers(3))
}

func benchmarkStartStop(b *testing.B, opts ...Option) {
	var starts, stops []time.Duration
	for i := 0; i < b.N; i++ {
		base := b.TempDir()
		t0 := time.Now()
		c, err := New(append([]Option{WithBaseDir(base)}, opts...)...).Start(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := c.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
		starts = append(starts, t1.Sub(t0))
		stops = append(stops, time.Since(t1))
	}
	b.ReportMetric(median(starts).Seconds(), "start-median-s")
	b.ReportMetric(maxOf(starts).Seconds(), "start-max-s")
	b.ReportMetric(median(stops).Seconds(), "stop-median-s")
	b.ReportMetric(maxOf(stops).Seconds(), "stop-max-s")
	b.Logf("starts %v stops %v", starts, stops)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
