package startup

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServerKeys(t *testing.T) {
	k := DefaultServerKeys()
	require.NoError(t, k.Validate("namesrv"))
	require.Equal(t, "0.0.0.0:9876", k.ListenAddr(9876))
	k.BindAddress = "::1"
	require.Equal(t, "[::1]:0", k.ListenAddr(0))
	k.BindAddress = "localhost"
	require.EqualError(t, k.Validate("broker"), `broker config: bindAddress "localhost" is not an IP address`)
}
