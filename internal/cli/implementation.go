package cli

import (
	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/internal/report"
)

// addImplementationFlags binds the flags that say what was tested; the
// options file's `implementation:` block sets the same fields.
func addImplementationFlags(fs *pflag.FlagSet, impl *report.Implementation) {
	fs.StringVar(&impl.Organization, "implementation-organization", impl.Organization, "organization of the tested implementation (report.yaml)")
	fs.StringVar(&impl.Project, "implementation-project", impl.Project, "project name of the tested implementation")
	fs.StringVar(&impl.URL, "implementation-url", impl.URL, "http(s) URL of the tested implementation")
	fs.StringVar(&impl.Version, "implementation-version", impl.Version, "version of the tested implementation")
	fs.StringSliceVar(&impl.Contact, "implementation-contact", impl.Contact, "who to ask about the report (GitHub handles, e-mail addresses), repeatable or comma-separated")
}
