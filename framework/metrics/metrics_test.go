package metrics

import "testing"

func TestSumMatchingSeries(t *testing.T) {
	raw := []byte(`# HELP apiserver_admission_webhook_fail_open_count x
# TYPE apiserver_admission_webhook_fail_open_count counter
apiserver_admission_webhook_fail_open_count{name="a",type="validating"} 2
apiserver_admission_webhook_fail_open_count{name="a",type="admit"} 3
apiserver_admission_webhook_fail_open_count{name="b",type="validating"} 5
`)
	families, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	fam := families["apiserver_admission_webhook_fail_open_count"]
	if got := sumMatching(fam, map[string]string{"name": "a"}); got != 5 {
		t.Fatalf("name=a: %v", got)
	}
	if got := sumMatching(fam, map[string]string{"name": "a", "type": "validating"}); got != 2 {
		t.Fatalf("name=a,type=validating: %v", got)
	}
	if got := sumMatching(fam, map[string]string{"name": "c"}); got != 0 {
		t.Fatalf("name=c: %v", got)
	}
}

func TestOnlyKeepsTheNamedFamiliesWhole(t *testing.T) {
	raw := []byte(`# HELP a_seconds x
# TYPE a_seconds histogram
a_seconds_bucket{le="1"} 1
a_seconds_bucket{le="+Inf"} 2
a_seconds_sum 3.5
a_seconds_count 2
# HELP a_seconds_total y
# TYPE a_seconds_total counter
a_seconds_total 9
# HELP b z
# TYPE b gauge
b{k="v"} 4
`)
	families, err := Parse(Only(raw, "a_seconds", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != 2 {
		t.Fatalf("families %v, want a_seconds and b only", families)
	}
	h := families["a_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 3.5 || len(h.GetBucket()) != 2 {
		t.Fatalf("histogram %v", h)
	}
	if got := sumMatching(families["b"], map[string]string{"k": "v"}); got != 4 {
		t.Fatalf("b: %v", got)
	}
	if got, err := Parse(Only(raw, "missing")); err != nil || len(got) != 0 {
		t.Fatalf("missing: %v %v", got, err)
	}
}
