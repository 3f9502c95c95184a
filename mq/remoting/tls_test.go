package remoting_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

const tlsTestCode int32 = 100

// startTLSServer starts an echo server on loopback in mode with a run-time self-signed
// certificate, adjusted by the tune functions; it returns the address and the certificate's path.
func startTLSServer(t *testing.T, mode string, tune ...func(*remoting.TLSServer)) (addr, certPath string) {
	t.Helper()
	cert, key := remotingtest.SelfSignedCert(t, t.TempDir())
	ts, err := remoting.TLSServerKeys{Mode: mode, CertPath: cert, KeyPath: key, NeedClientAuth: "none"}.Build()
	require.NoError(t, err)
	for _, f := range tune {
		f(&ts)
	}
	s := remoting.NewServer(remoting.ServerConfig{ListenAddr: "127.0.0.1:0", TLS: ts}, nil, nil)
	s.RegisterProcessor(tlsTestCode, remoting.ProcessorFunc(func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
		resp := remoting.NewResponse(remoting.Success, "")
		resp.Body = req.Body
		return resp, nil
	}), 1)
	require.NoError(t, s.Start())
	t.Cleanup(s.Shutdown)
	return s.Addr().String(), cert
}

// call sends one request on a fresh client (plain when cfg is nil) and returns the answer's
// body or the error.
func call(t *testing.T, addr string, cfg *tls.Config) (string, error) {
	t.Helper()
	c := remoting.NewClient(remoting.ClientConfig{TLS: cfg, ConnectTimeout: 3 * time.Second}, nil)
	defer c.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, remoting.NewRequest(tlsTestCode, nil, []byte("ping")))
	if err != nil {
		return "", err
	}
	return string(resp.Body), nil
}

// TestTLSServerModes pins tls.server.mode as RocketMQ's remoting has it: disabled serves plain
// and refuses a TLS client with a closed connection; permissive serves plain and TLS on one
// port (told apart by the first byte, 0x16 for a handshake); enforcing serves TLS and closes
// a plain connection. The client side is tls.enable with tls.client.authServer off (accepts
// any certificate, as the official client does) and on (verifies against the trusted cert).
// Java: NettyRemotingServer's HandshakeHandler, TlsMode.
func TestTLSServerModes(t *testing.T) {
	insecure, err := remoting.TLSClientKeys{Enable: true}.Build()
	require.NoError(t, err)
	for _, tc := range []struct {
		mode           string
		plainOK, tlsOK bool
	}{
		{"disabled", true, false},
		{"permissive", true, true},
		{"enforcing", false, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			addr, cert := startTLSServer(t, tc.mode)
			body, err := call(t, addr, nil)
			if tc.plainOK {
				require.NoError(t, err)
				require.Equal(t, "ping", body)
			} else {
				require.Error(t, err, "a plain client got an answer")
			}
			body, err = call(t, addr, insecure)
			if tc.tlsOK {
				require.NoError(t, err)
				require.Equal(t, "ping", body)
				verified, err := remoting.TLSClientKeys{Enable: true, AuthServer: true, TrustCertPath: cert}.Build()
				require.NoError(t, err)
				body, err = call(t, addr, verified)
				require.NoError(t, err, "the server's certificate verifies against itself")
				require.Equal(t, "ping", body)
				other, _ := remotingtest.SelfSignedCert(t, t.TempDir())
				wrong, err := remoting.TLSClientKeys{Enable: true, AuthServer: true, TrustCertPath: other}.Build()
				require.NoError(t, err)
				_, err = call(t, addr, wrong)
				require.Error(t, err, "a certificate the client does not trust")
			} else {
				require.Error(t, err, "a TLS client got an answer")
			}
		})
	}
}

// TestTLSKeysBuild: bad settings are errors naming the key, never a server silently plain.
func TestTLSKeysBuild(t *testing.T) {
	ts, err := remoting.DefaultTLSServerKeys().Build()
	require.NoError(t, err)
	require.Equal(t, remoting.TLSDisabled, ts.Mode)
	_, err = remoting.TLSServerKeys{Mode: "strict"}.Build()
	require.ErrorContains(t, err, "tls.server.mode")
	_, err = remoting.TLSServerKeys{Mode: "enforcing"}.Build()
	require.ErrorContains(t, err, "tls.server.certPath")
	dir := t.TempDir()
	_, err = remoting.TLSServerKeys{Mode: "permissive", CertPath: filepath.Join(dir, "x.pem"), KeyPath: filepath.Join(dir, "x.key")}.Build()
	require.ErrorContains(t, err, "tls.server.certPath")
	cert, key := remotingtest.SelfSignedCert(t, dir)
	_, err = remoting.TLSServerKeys{Mode: "permissive", CertPath: cert, KeyPath: key, NeedClientAuth: "maybe"}.Build()
	require.ErrorContains(t, err, "tls.server.need.client.auth")
	_, err = remoting.TLSServerKeys{Mode: "permissive", CertPath: cert, KeyPath: key, NeedClientAuth: "require"}.Build()
	require.ErrorContains(t, err, "tls.server.trustCertPath")
	ts, err = remoting.TLSServerKeys{Mode: "Enforcing", CertPath: cert, KeyPath: key, NeedClientAuth: "require", TrustCertPath: cert}.Build()
	require.NoError(t, err)
	require.Equal(t, "enforcing", ts.Mode.String())
	c, err := remoting.TLSClientKeys{}.Build()
	require.NoError(t, err)
	require.Nil(t, c, "tls.enable=false: plain")
}

// TestTLSHalfHandshakeIsClosed: a peer that sends the first bytes of a TLS hello and stops is
// closed once the handshake timeout passes (Java: SslHandler's handshakeTimeoutMillis), not
// left until the 120 s idle scan; meanwhile other clients, plain and TLS, are served.
func TestTLSHalfHandshakeIsClosed(t *testing.T) {
	addr, _ := startTLSServer(t, "permissive", func(ts *remoting.TLSServer) { ts.HandshakeTimeout = 200 * time.Millisecond })

	stuck, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer stuck.Close()
	_, err = stuck.Write([]byte{0x16, 0x03, 0x01}) // a record header, cut short
	require.NoError(t, err)

	insecure, err := remoting.TLSClientKeys{Enable: true}.Build()
	require.NoError(t, err)
	for _, cfg := range []*tls.Config{nil, insecure} {
		body, err := call(t, addr, cfg)
		require.NoError(t, err, "another client is served while a handshake hangs")
		require.Equal(t, "ping", body)
	}

	require.NoError(t, stuck.SetReadDeadline(time.Now().Add(5*time.Second)))
	start := time.Now()
	_, err = stuck.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the server closed the half-finished handshake")
	require.Less(t, time.Since(start), 4*time.Second)
}
