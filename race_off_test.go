//go:build !race

package promptsmith_test

const raceDetector = false
