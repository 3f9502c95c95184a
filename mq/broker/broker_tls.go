package broker

import "github.com/annotated-rocketmq/rocketmq-go/mq/remoting"

// outerAPIClientConfig is the config of the broker's connections to the name servers: TLS
// when the broker's own server enforces TLS, plain otherwise.
//
// Deviation: Java's broker dials TLS when the tls.enable property is set; here a broker whose
// tls.server.mode is enforcing dials TLS too (a deployment that refuses plain connections
// runs its name servers with TLS, and a permissive name server takes either), so one key
// turns TLS on for a broker. The server's certificate is not verified (Java's
// tls.client.authServer default).
func outerAPIClientConfig(server remoting.ServerConfig) remoting.ClientConfig {
	var c remoting.ClientConfig
	if server.TLS.Mode == remoting.TLSEnforcing {
		c.TLS, _ = remoting.TLSClientKeys{Enable: true}.Build() // reads no file: cannot fail
	}
	return c
}
