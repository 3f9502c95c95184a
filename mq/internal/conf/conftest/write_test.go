package conftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
)

// TestWriteReadsBack: the file Write leaves is named as asked and parses to the lines given.
func TestWriteReadsBack(t *testing.T) {
	p := Write(t, "broker.conf", "brokerName=broker-x", "listenPort=0")
	require.Equal(t, "broker.conf", filepath.Base(p))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	props, err := conf.ParseProperties(f)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"brokerName": "broker-x", "listenPort": "0"}, props)
}
