package variants_test

import (
	"os"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/scratch"
)

// TestMain puts the files the tests make in memory (scratch.Main).
func TestMain(m *testing.M) { os.Exit(scratch.Main(m)) }
