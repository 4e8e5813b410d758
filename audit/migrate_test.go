package audit

import (
	"fmt"
	"io/fs"
	"testing"
)

// TestMigrationFiles: every version of the schema has its DDL in each
// dialect, and every embedded file is one of them, so that no file is
// left out of the schema by a misspelt name.
func TestMigrationFiles(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, m := range migrationSteps() {
		for _, dialect := range []string{"sqlite", "postgres"} {
			want[fmt.Sprintf("migrations/%d.%s.sql", m.version, dialect)] = true
		}
	}
	files, err := fs.Glob(migrationFiles, "migrations/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[f] {
			t.Errorf("%s is embedded but no version of migrationSteps reads it", f)
		}
		delete(want, f)
	}
	for f := range want {
		t.Errorf("%s is missing", f)
	}
}
