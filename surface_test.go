package promptsmith_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxExported bounds the exported identifiers of the module's importable
// packages: what a caller outside the module can reach is what the
// project promises to keep, so it stays small.
const maxExported = 220

// publicPackages are the packages a caller outside the module may import,
// relative to the module's root: those docs/go.md and example_test.go
// use. Every other package is under an internal/ folder, or a command.
var publicPackages = []string{".", "audit", "engine", "engine/verbatim", "server", "tokens"}

// TestPublicSurface counts the exported identifiers of the importable
// packages — top-level types, functions, variables and constants, and the
// exported methods of exported types, in files that are not tests — and
// fails over maxExported, or when a package outside internal/ that is not
// a command is not one of publicPackages.
func TestPublicSurface(t *testing.T) {
	var found []string
	for _, dir := range moduleDirs(t) {
		if strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal/") || strings.HasSuffix(dir, "/internal") || dir == "internal" {
			continue
		}
		if pkg, err := build.ImportDir(dir, 0); err == nil && pkg.Name != "main" {
			found = append(found, dir)
		}
	}
	slices.Sort(found)
	want := slices.Sorted(slices.Values(publicPackages))
	if !slices.Equal(found, want) {
		t.Errorf("importable packages are %v, want %v: move the others under internal/ or engine/internal/", found, want)
	}
	total := 0
	for _, dir := range found {
		names := exportedNames(t, dir)
		total += len(names)
		t.Logf("%-16s %3d", dir, len(names))
	}
	t.Logf("%-16s %3d (at most %d)", "all", total, maxExported)
	if total > maxExported {
		t.Errorf("the importable packages export %d identifiers, over %d: move what callers outside the module do not need under internal/", total, maxExported)
	}
}

// exportedNames lists the exported identifiers of the package in dir.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, file := range pkg.GoFiles {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				} else if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
					names = append(names, recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return names
}

// receiverType is the name of a method's receiver type: T of T, *T, T[P].
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}
