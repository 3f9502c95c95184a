//go:build tools

// This file pins modules the project uses in tests and in packages still being written, so
// `go mod tidy` keeps them. It is never built.
package tools

import (
	_ "github.com/apache/rocketmq-client-go/v2"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/sys/unix"
)
