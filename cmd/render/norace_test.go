//go:build !race

package main

// raceDetector is whether the tests run under the race detector.
const raceDetector = false
