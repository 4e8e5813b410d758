package server_test

import (
	"os"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestMain gives the PostgreSQL tests a throwaway cluster when no database
// is named (testpostgres.Main).
func TestMain(m *testing.M) { os.Exit(testpostgres.Main(m)) }
