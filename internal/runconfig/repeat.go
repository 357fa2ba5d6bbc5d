package runconfig

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// MaxRepeat is the most repetitions a run takes without --no-ceilings: at
// 100 the 95 % interval of a pass rate is already ±10 % at most, and a full
// run repeated 100 times takes about 1.5 hours on 2 CPUs (56 s each).
const MaxRepeat = 100

// validateRepeat refuses a count that repeats nothing, or more than
// MaxRepeat without --no-ceilings.
func (o *Config) validateRepeat() error {
	if o.Repeat < 1 {
		return exitcode.Usagef("--repeat must be at least 1 (how many times each selected case runs; 1 runs each once), got %d", o.Repeat)
	}
	if o.Repeat > MaxRepeat && !o.NoCeilings && o.Worker() == nil {
		return OverCeiling(fmt.Errorf("--repeat %d is over the ceiling of %d repetitions (the 95%% interval of a pass rate is within ±10%% at %d; each repetition takes as long as the run)",
			o.Repeat, MaxRepeat, MaxRepeat))
	}
	if o.RepeatOnlyMeasured && o.Repeat < 2 {
		return exitcode.Usagef("--repeat-only-measured goes with --repeat 2 or more (how many times each measured case runs)")
	}
	return nil
}

// RepeatPolicy is what results.json records of --repeat; nil without.
func (o *Config) RepeatPolicy() *results.Repeat {
	if o.Repeat <= 1 {
		return nil
	}
	return &results.Repeat{Count: o.Repeat, OnlyMeasured: o.RepeatOnlyMeasured}
}
