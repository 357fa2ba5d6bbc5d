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
