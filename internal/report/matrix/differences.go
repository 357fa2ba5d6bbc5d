package matrix

import "github.com/admission-conformance/admission-conformance/framework/results"

// markDifferences marks the case and measurement rows on which the targets
// with results disagree. A target without results has no cells, so it
// says nothing about a row and is left out.
func (m *Matrix) markDifferences() {
	var columns []string
	for _, t := range m.Targets {
		if t.HasResults() {
			columns = append(columns, t.Name)
		}
	}
	for i := range m.Cases {
		c := &m.Cases[i]
		for _, name := range columns[min(1, len(columns)):] {
			if c.Cells[name].State != c.Cells[columns[0]].State {
				c.Differs = true
			}
		}
		if c.Differs {
			m.CasesDiffering++
		}
	}
	for i := range m.Measurements {
		r := &m.Measurements[i]
		var present []results.Measurement
		for _, name := range columns {
			if v, ok := r.Values[name]; ok {
				present = append(present, results.Measurement{Value: v.Value, Unit: v.Unit, Bound: v.Bound, Lower: v.Lower})
			}
		}
		r.Reason = m.Thresholds.Disagreement(present, len(columns))
		r.Differs = r.Reason != ""
		if r.Differs {
			m.MeasurementsDiffering++
		}
	}
}

// CasesDifferingFirst lists the case rows whose state differs, then the
// others, each group in the matrix's order.
func (m Matrix) CasesDifferingFirst() []Case {
	return differingFirst(m.Cases, func(c Case) bool { return c.Differs })
}

// MeasurementsDifferingFirst lists the measurement rows that differ, then
// the others, each group in the matrix's order.
func (m Matrix) MeasurementsDifferingFirst() []MeasurementRow {
	return differingFirst(m.Measurements, func(r MeasurementRow) bool { return r.Differs })
}

// differingFirst is a stable partition: rows that differ, then the others.
func differingFirst[Row any](rows []Row, differs func(Row) bool) []Row {
	out := make([]Row, 0, len(rows))
	for _, want := range []bool{true, false} {
		for _, r := range rows {
			if differs(r) == want {
				out = append(out, r)
			}
		}
	}
	return out
}
