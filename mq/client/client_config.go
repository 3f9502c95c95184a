package client

import (
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// DefaultInstanceName is the instance name of a client that names none. A producer or consumer
// (other than the inner producer) replaces it with "<pid>#<nanotime>" before it looks up its
// MQClientInstance (ChangeInstanceNameToPID). Java: ClientConfig#instanceName default.
const DefaultInstanceName = "DEFAULT"

// ClientConfig is what every producer and consumer of a process shares through its
// MQClientInstance: the name servers, the client's identity (clientId = ip@instanceName) and
// the periods of the instance's scheduled tasks.
// Mirrors org.apache.rocketmq.client.ClientConfig (the fields that mean something here).
//
// The first producer or consumer of a clientId creates the MQClientInstance with its config; the
// others share that instance and its config, as in Java (MQClientManager#getOrCreateMQClientInstance).
// Zero fields take the defaults of DefaultClientConfig. It holds only RocketMQ's keys: what a
// Go client sets besides them (a logger, a clock, the switch that turns the scheduled tasks
// off) is in Options, which travels beside it.
type ClientConfig struct {
	// NamesrvAddr lists the name servers, "host:port;host:port". Java: namesrvAddr.
	NamesrvAddr string
	// ClientIP is the first part of the clientId; default: the first non-loopback IPv4 address
	// of the host (RemotingUtil#getLocalAddress), else 127.0.0.1.
	ClientIP string
	// InstanceName is the second part of the clientId. Default "DEFAULT".
	InstanceName string
	// UnitName, when set, is appended to the clientId ("ip@instance@unit").
	UnitName string
	// UnitMode is sent in send headers and heartbeats. Default false.
	UnitMode bool
	// PollNameServerInterval is the period of the route refresh of every topic the instance's
	// producers publish to and consumers subscribe to (first pass 10 ms after start).
	// Default 30 s. Java: pollNameServerInterval (ms).
	PollNameServerInterval time.Duration
	// HeartbeatBrokerInterval is the period of cleanOfflineBroker + sendHeartbeatToAllBroker
	// (first pass 1 s after start). Default 30 s. Java: heartbeatBrokerInterval (ms).
	HeartbeatBrokerInterval time.Duration
	// PersistConsumerOffsetInterval is the period of persistAllConsumerOffset (first pass 10 s
	// after start). Default 5 s. Java: persistConsumerOffsetInterval (ms).
	PersistConsumerOffsetInterval time.Duration
	// RebalanceInterval is the period of the RebalanceService (doRebalance of every consumer).
	// Default 20 s. Java: the rocketmq.client.rebalance.waitInterval system property (ms).
	RebalanceInterval time.Duration
	// MQClientAPITimeout bounds route queries, heartbeats and other client API calls. Default
	// 3 s. Java: mqClientApiTimeout (ms).
	MQClientAPITimeout time.Duration
	// VIPChannelEnabled sends messages to the broker's VIP port (listen port − 2). Default false.
	// Java: vipChannelEnabled (the com.rocketmq.sendMessageWithVIPChannel property, "false").
	VIPChannelEnabled bool
	// Remoting configures the connections (connect timeout, frame size, idle close, and
	// Remoting.TLS: the crypto/tls settings of a TLS connection).
	Remoting remoting.ClientConfig
	// UseTLS makes every connection (name servers, brokers) TLS: Remoting.TLS when set, else
	// tls.enable's defaults (the server's certificate is not verified, as the official Go
	// client's WithTls does). Default false. Java: useTLS (the tls.enable property).
	UseTLS bool
}

// remotingConfig is Remoting with UseTLS applied.
func (c *ClientConfig) remotingConfig() remoting.ClientConfig {
	rc := c.Remoting
	if c.UseTLS && rc.TLS == nil {
		rc.TLS, _ = remoting.TLSClientKeys{Enable: true}.Build() // reads no file: cannot fail
	}
	return rc
}

// DefaultClientConfig returns ClientConfig's defaults: instance DEFAULT, route refresh and
// heartbeat every 30 s, offset persistence every 5 s, rebalance every 20 s, 3 s API timeout.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		InstanceName:                  DefaultInstanceName,
		PollNameServerInterval:        30 * time.Second,
		HeartbeatBrokerInterval:       30 * time.Second,
		PersistConsumerOffsetInterval: 5 * time.Second,
		RebalanceInterval:             20 * time.Second,
		MQClientAPITimeout:            3 * time.Second,
	}
}

// WithDefaults returns c with every zero field set to its default (ClientIP to the host's
// address).
func (c ClientConfig) WithDefaults() ClientConfig {
	def := DefaultClientConfig()
	if c.InstanceName == "" {
		c.InstanceName = def.InstanceName
	}
	if c.ClientIP == "" {
		c.ClientIP = LocalAddress()
	}
	DefaultIfUnset(&c.PollNameServerInterval, def.PollNameServerInterval)
	DefaultIfUnset(&c.HeartbeatBrokerInterval, def.HeartbeatBrokerInterval)
	DefaultIfUnset(&c.PersistConsumerOffsetInterval, def.PersistConsumerOffsetInterval)
	DefaultIfUnset(&c.RebalanceInterval, def.RebalanceInterval)
	DefaultIfUnset(&c.MQClientAPITimeout, def.MQClientAPITimeout)
	return c
}

// DefaultIfUnset sets *v to def when *v is zero or negative: how the client's configs
// (ClientConfig and the producer's and consumer's) give a field left unset its default.
func DefaultIfUnset[T ~int | ~int32 | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// BuildMQClientID returns the clientId: "clientIP@instanceName", plus "@unitName" when a unit
// name is set. Producers and consumers with the same clientId share one MQClientInstance, and
// a consumer group's members are told apart by it (GET_CONSUMER_LIST_BY_GROUP).
// Java: ClientConfig#buildMQClientId.
func (c *ClientConfig) BuildMQClientID() string {
	ip := c.ClientIP
	if ip == "" {
		ip = LocalAddress()
	}
	inst := c.InstanceName
	if inst == "" {
		inst = DefaultInstanceName
	}
	id := ip + "@" + inst
	if strings.TrimSpace(c.UnitName) != "" {
		id += "@" + c.UnitName
	}
	return id
}

// ChangeInstanceNameToPID replaces the instance name DEFAULT with "<pid>#<nanotime>", so each
// producer or consumer that names no instance gets an MQClientInstance of its own.
// Java: ClientConfig#changeInstanceNameToPID.
func (c *ClientConfig) ChangeInstanceNameToPID() {
	if c.InstanceName == "" || c.InstanceName == DefaultInstanceName {
		// The suffix is a token that differs between two calls, not a reading of the client's
		// time: Java's System.nanoTime. It takes the wall clock even when Options.Clock is a manual
		// one, which could give two consumers of a test the same name (and one instance).
		c.InstanceName = strconv.Itoa(os.Getpid()) + "#" + strconv.FormatInt(clock.System{}.Now().UnixNano(), 10)
	}
}

// NamesrvAddrList is NamesrvAddr's list (protocol.SplitNamesrvAddr).
func (c *ClientConfig) NamesrvAddrList() []string { return protocol.SplitNamesrvAddr(c.NamesrvAddr) }

// LocalAddress returns the host's address as RocketMQ clients report it: the first IPv4
// address that is neither loopback nor 192.168.x.x, else the first 192.168.x.x one, else
// 127.0.0.1. Java: RemotingUtil#getLocalAddress (IPv6 and hostname fallbacks left out).
func LocalAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "127.0.0.1"
	}
	private := ""
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip := ipn.IP.To4()
		if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			continue
		}
		if ip[0] == 192 && ip[1] == 168 {
			if private == "" {
				private = ip.String()
			}
			continue
		}
		return ip.String()
	}
	if private != "" {
		return private
	}
	return "127.0.0.1"
}
