package access

import (
	"fmt"
	"strings"
)

// Markdown is the rights table of docs/providers.md: one row per right
// with its scope, the specs that need it and why, then the optional
// identities and installations. Generated, so the doc cannot drift from the code (a test
// compares them).
func Markdown(needed []Access, optional []Optional, installs ...Installation) string {
	var b strings.Builder
	b.WriteString("| right | scope | needed by | why |\n| --- | --- | --- | --- |\n")
	for _, a := range needed {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a, scope(a), a.NeededBy(), cell(a.Why))
	}
	b.WriteString("\nOptional (asked for only when a spec that wants one is selected; without it those cases are not supported):\n\n")
	b.WriteString("| identity | rights | wanted by | why |\n| --- | --- | --- | --- |\n")
	for _, o := range optional {
		var rights []string
		for _, a := range o.Access {
			rights = append(rights, "`"+a.String()+"`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", o.Identity, strings.Join(rights, "<br>"), strings.Join(o.Specs, ", "), cell(o.Identity.Why))
	}
	for _, in := range installs {
		b.WriteString("\nOptional installation (the harness installs it only where the user holds these rights; without them those cases are not supported):\n\n")
		b.WriteString("| installs | rights | wanted by |\n| --- | --- | --- |\n")
		var rights []string
		for _, a := range in.Access {
			rights = append(rights, "`"+a.String()+"`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", in.What, strings.Join(rights, "<br>"), strings.Join(in.Specs, ", "))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
