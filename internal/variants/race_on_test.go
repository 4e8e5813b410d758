//go:build race

package variants_test

// raceDetector says the tests run under the race detector, where counting
// tokens is many times slower.
const raceDetector = true
