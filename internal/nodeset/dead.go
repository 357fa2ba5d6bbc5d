package nodeset

import "errors"

// Dead returns, for each node whose process has exited, how it ended (its
// exit status; its output went to the log the set was started with);
// nothing while every node runs.
func (s *Set) Dead() map[string]error {
	if s == nil {
		return nil
	}
	var out map[string]error
	for _, n := range s.nodes {
		if n.proc == nil {
			continue
		}
		if status := n.proc.ExitStatus(); status != "" {
			if out == nil {
				out = map[string]error{}
			}
			out[n.config.Name] = errors.New(status)
		}
	}
	return out
}
