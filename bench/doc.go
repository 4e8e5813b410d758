// Package bench measures promptsmith side by side with the renderers a Go
// user would otherwise pick. It is a module of its own so that those peers
// never become dependencies of promptsmith itself; see ../BENCH.md.
package bench
