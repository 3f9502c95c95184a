package remoting

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// TLS handshake records begin with this content-type byte (RFC 8446 §5.1, handshake(22)); a
// remoting frame begins with its 4-byte big-endian length, whose first byte is 0x00 for every
// frame below 16 MiB. Permissive mode tells the two apart by it.
const tlsHandshakeByte = 0x16

// DefaultTLSHandshakeTimeout bounds a TLS handshake from its first byte to its end (Java:
// Netty's SslHandler handshakeTimeoutMillis, 10 s).
const DefaultTLSHandshakeTimeout = 10 * time.Second

// ErrTLSRequired: a plain (non-TLS) connection reached a server in enforcing mode.
var ErrTLSRequired = errors.New("remoting: plain connection refused: tls.server.mode is enforcing")

// ErrTLSNotEnabled: a TLS handshake reached a server whose tls.server.mode is disabled.
var ErrTLSNotEnabled = errors.New("remoting: TLS handshake refused: tls.server.mode is disabled")

// TLSMode is a server's tls.server.mode. Java: org.apache.rocketmq.remoting.common.TlsMode.
type TLSMode int

const (
	// TLSDisabled: plain connections only; a TLS handshake is refused with a closed connection.
	TLSDisabled TLSMode = iota
	// TLSPermissive: plain and TLS on one port, told apart by the first byte.
	TLSPermissive
	// TLSEnforcing: TLS only; a plain connection is closed.
	TLSEnforcing
)

// String is RocketMQ's name of the mode: "disabled", "permissive", "enforcing".
func (m TLSMode) String() string {
	switch m {
	case TLSPermissive:
		return "permissive"
	case TLSEnforcing:
		return "enforcing"
	}
	return "disabled"
}

// ParseTLSMode reads a tls.server.mode value (case-insensitive); anything else is an error
// naming the three.
func ParseTLSMode(s string) (TLSMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "disabled", "":
		return TLSDisabled, nil
	case "permissive":
		return TLSPermissive, nil
	case "enforcing":
		return TLSEnforcing, nil
	}
	return TLSDisabled, fmt.Errorf("tls.server.mode %q: want disabled, permissive or enforcing", s)
}

// TLSServerKeys are RocketMQ's server-side TLS settings, under their system-property names
// (Java: TlsSystemConfig), as a broker's or name server's properties file holds them.
//
// Deviation: Java defaults tls.server.mode to permissive and, with tls.test.mode.enable, serves
// a self-signed test certificate; here the default is disabled and TLS needs the certificate
// and key files, so no broker speaks TLS with a certificate nobody chose.
type TLSServerKeys struct {
	// Mode is tls.server.mode: disabled (default), permissive or enforcing.
	Mode string `prop:"tls.server.mode"`
	// CertPath and KeyPath are the server's PEM certificate (chain) and unencrypted PEM key.
	CertPath string `prop:"tls.server.certPath"`
	KeyPath  string `prop:"tls.server.keyPath"`
	// NeedClientAuth is none (default), optional or require: whether a client certificate is
	// asked for, and verified against TrustCertPath.
	NeedClientAuth string `prop:"tls.server.need.client.auth"`
	// TrustCertPath is the PEM file of the CAs client certificates must chain to.
	TrustCertPath string `prop:"tls.server.trustCertPath"`
}

// DefaultTLSServerKeys returns tls.server.mode=disabled, tls.server.need.client.auth=none.
func DefaultTLSServerKeys() TLSServerKeys {
	return TLSServerKeys{Mode: "disabled", NeedClientAuth: "none"}
}

// Build reads the files the keys name and returns the server's TLS settings; disabled needs
// no files. A missing or unreadable file, a bad mode or client-auth value is an error naming
// the key. Java: TlsHelper#buildSslContext (server side).
func (k TLSServerKeys) Build() (TLSServer, error) {
	mode, err := ParseTLSMode(k.Mode)
	if err != nil || mode == TLSDisabled {
		return TLSServer{}, err
	}
	if k.CertPath == "" || k.KeyPath == "" {
		return TLSServer{}, fmt.Errorf("tls.server.mode=%s needs tls.server.certPath and tls.server.keyPath", mode)
	}
	cert, err := tls.LoadX509KeyPair(k.CertPath, k.KeyPath)
	if err != nil {
		return TLSServer{}, fmt.Errorf("tls.server.certPath/keyPath: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch strings.ToLower(k.NeedClientAuth) {
	case "", "none":
	case "optional":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "require":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	default:
		return TLSServer{}, fmt.Errorf("tls.server.need.client.auth %q: want none, optional or require", k.NeedClientAuth)
	}
	if cfg.ClientAuth != tls.NoClientCert {
		pool, err := LoadCertPool(k.TrustCertPath)
		if err != nil {
			return TLSServer{}, fmt.Errorf("tls.server.trustCertPath: %w", err)
		}
		cfg.ClientCAs = pool
	}
	return TLSServer{Mode: mode, Config: cfg}, nil
}

// LoadCertPool reads a PEM file of CA certificates; a file without one is an error.
func LoadCertPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", path)
	}
	return pool, nil
}

// TLSServer is what a Server does with TLS: its mode and, unless disabled, the crypto/tls
// settings it serves.
type TLSServer struct {
	Mode   TLSMode
	Config *tls.Config
	// HandshakeTimeout closes a connection whose TLS handshake has not finished this long
	// after its first byte arrived; zero: DefaultTLSHandshakeTimeout. A peer that starts a
	// handshake and stops holds only its own connection's goroutines, and only this long.
	HandshakeTimeout time.Duration
}

// wrap returns the connection a Channel reads and writes. Disabled mode returns conn itself
// (nothing on the data path); the other modes return a sniffConn that decides on the first
// byte, in the connection's own goroutines (the accept loop never waits for a client).
func (t TLSServer) wrap(conn net.Conn) net.Conn {
	if t.Mode == TLSDisabled || t.Config == nil {
		return conn
	}
	timeout := t.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultTLSHandshakeTimeout
	}
	return &sniffConn{Conn: conn, mode: t.Mode, cfg: t.Config, handshakeTimeout: timeout}
}

// sniffConn reads a connection's first byte on its first Read or Write, then speaks TLS over
// it (0x16: a handshake) or plain (permissive), or fails every call (enforcing, plain).
// Java: NettyRemotingServer's HandshakeHandler.
type sniffConn struct {
	net.Conn // the raw connection: Close, addresses and deadlines go to it
	mode     TLSMode
	cfg      *tls.Config
	// handshakeTimeout is the read/write deadline of the handshake (TLSServer.HandshakeTimeout).
	handshakeTimeout time.Duration

	once sync.Once
	rw   io.ReadWriter // the decided stream: tls.Server over a prefixConn, or the prefixConn
	err  error
}

func (c *sniffConn) decide() {
	c.once.Do(func() {
		var b [1]byte
		if _, err := io.ReadFull(c.Conn, b[:]); err != nil {
			c.err = err
			return
		}
		pc := &prefixConn{Conn: c.Conn, prefix: b[:]}
		switch {
		case b[0] == tlsHandshakeByte:
			c.rw, c.err = c.handshake(pc)
		case c.mode == TLSEnforcing:
			c.err = fmt.Errorf("%w (from %s)", ErrTLSRequired, c.Conn.RemoteAddr())
		default:
			c.rw = pc
		}
	})
}

// handshake runs the server side of the TLS handshake over pc under a deadline of
// handshakeTimeout (a socket deadline is wall time), then clears the deadline for the data path.
func (c *sniffConn) handshake(pc *prefixConn) (io.ReadWriter, error) {
	_ = c.Conn.SetDeadline(clock.System{}.Now().Add(c.handshakeTimeout))
	tc := tls.Server(pc, c.cfg)
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("remoting: TLS handshake from %s: %w", c.Conn.RemoteAddr(), err)
	}
	_ = c.Conn.SetDeadline(time.Time{})
	return tc, nil
}

func (c *sniffConn) Read(p []byte) (int, error) {
	if c.decide(); c.err != nil {
		return 0, c.err
	}
	return c.rw.Read(p)
}

func (c *sniffConn) Write(p []byte) (int, error) {
	if c.decide(); c.err != nil {
		return 0, c.err
	}
	return c.rw.Write(p)
}

// prefixConn returns prefix before the rest of the connection's bytes.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// looksLikeTLS tells whether a frame's 4-byte length field is the start of a TLS handshake
// record (0x16 0x03: handshake, TLS 1.x), the way a TLS client's first bytes arrive at a
// plain server.
func looksLikeTLS(lengthField []byte) bool {
	return len(lengthField) >= 2 && lengthField[0] == tlsHandshakeByte && lengthField[1] == 0x03
}

// TLSClientKeys are RocketMQ's client-side TLS settings (Java: TlsSystemConfig's tls.enable
// and tls.client.*).
type TLSClientKeys struct {
	// Enable is tls.enable: connections are TLS.
	Enable bool `prop:"tls.enable"`
	// CertPath and KeyPath are the client's own PEM certificate and key, for a server that asks
	// for one (tls.server.need.client.auth); both empty: none.
	CertPath string `prop:"tls.client.certPath"`
	KeyPath  string `prop:"tls.client.keyPath"`
	// AuthServer verifies the server's certificate against TrustCertPath (or the system's CAs
	// when empty). false (Java's default, and what the official Go client always does) accepts
	// any certificate: the connection is encrypted, the server not authenticated.
	AuthServer    bool   `prop:"tls.client.authServer"`
	TrustCertPath string `prop:"tls.client.trustCertPath"`
}

// Build returns the client's *tls.Config, nil when tls.enable is false. Unreadable files are an
// error naming the key. Java: TlsHelper#buildSslContext (client side).
func (k TLSClientKeys) Build() (*tls.Config, error) {
	if !k.Enable {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: !k.AuthServer} //nolint:gosec // Java's tls.client.authServer=false
	if k.CertPath != "" || k.KeyPath != "" {
		cert, err := tls.LoadX509KeyPair(k.CertPath, k.KeyPath)
		if err != nil {
			return nil, fmt.Errorf("tls.client.certPath/keyPath: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if k.AuthServer && k.TrustCertPath != "" {
		pool, err := LoadCertPool(k.TrustCertPath)
		if err != nil {
			return nil, fmt.Errorf("tls.client.trustCertPath: %w", err)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
