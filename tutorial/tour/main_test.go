package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the tour and compares its whole output with the golden file: first the
// sequence of step labels, then every line. `go test ./tutorial/tour -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/tour.golden", run, inDir) }
