package server_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestMain gives the PostgreSQL tests a throwaway cluster when no database
// is named (testpostgres.Main), and runs four parallel tests a processor
// unless -parallel says otherwise. The package's parallel tests spend most
// of their time waiting: on a browser, on PostgreSQL, on the server's own
// timeouts (a render's, a slow body's, the lingering close after a refused
// body); at -parallel's default, one a processor, they held the package's
// slots for seconds with the processors idle, and the package took 7 s
// where it now takes 4.5.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	os.Exit(testpostgres.Main(m))
}
