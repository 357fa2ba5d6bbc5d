package apiboundary

import "strings"

// Module is this module's path.
const Module = "github.com/admission-conformance/admission-conformance"

// Door is the one public package outside framework/: it runs the engine, so
// it alone of the public packages may import internal/.
const Door = "conformance"

// Local is path relative to the module ("." for the module's root
// package), and whether path is in the module at all.
func Local(path string) (string, bool) {
	switch {
	case path == Module:
		return ".", true
	case strings.HasPrefix(path, Module+"/"):
		return strings.TrimPrefix(path, Module+"/"), true
	}
	return "", false
}

// Public says whether a module-relative package path is part of the API a
// vendor imports.
func Public(rel string) bool { return under(rel, "framework") || rel == Door }

// Forbidden says why the package importer may not import imported (both
// relative to the module), or "" if it may. The rule is on direct imports
// only; kept on every edge, it keeps every chain of imports in bounds too.
func Forbidden(importer, imported string) string {
	harnessSide := under(imported, "suites") || under(imported, "cmd") || under(imported, "hack")
	switch {
	case under(importer, "framework"):
		if under(imported, "internal") || harnessSide || imported == Door {
			return "a public package imports only public packages and reference/ (move what it needs under framework/, or the importer under internal/)"
		}
	case importer == Door:
		if harnessSide {
			return "the door runs the engine; it imports no suite, command or hack/ tool (a binary registers its specs by importing them)"
		}
	case under(importer, "reference"):
		if under(imported, "framework") || under(imported, "internal") || imported == Door || harnessSide {
			return "the reference implementations stand alone: they import nothing of the harness (framework/ may import reference/, not the other way)"
		}
	}
	return ""
}

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }
