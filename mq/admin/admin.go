package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// Config configures a DefaultMQAdminExt.
type Config struct {
	// NamesrvAddr lists the name servers, "host:port;host:port" (required).
	NamesrvAddr string
	// Timeout bounds each request (default 5 s). Java: DefaultMQAdminExt#timeoutMillis.
	Timeout time.Duration
	// Remoting configures the connections (zero: remoting's defaults; Remoting.TLS set: every
	// connection is TLS).
	Remoting remoting.ClientConfig
	// AccessKey, SecretKey and SecurityToken, when AccessKey and SecretKey are set, sign every
	// request for a broker with aclEnable=true (an admin request needs an admin account);
	// empty: unsigned. Java: the RPCHook MQAdminStartup passes to DefaultMQAdminExt.
	AccessKey, SecretKey, SecurityToken string
}

// ErrNoNameServer: Config.NamesrvAddr names no name server.
var ErrNoNameServer = errors.New("admin: no name server address (set -n or NAMESRV_ADDR)")

// DefaultMQAdminExt is the admin client: the requests mqadmin sends to name servers and
// brokers, each answered synchronously. A failing answer is a *remoting.RemoteError (code,
// remark and the address that answered); a transport failure is the remoting error.
// Mirrors org.apache.rocketmq.tools.admin.DefaultMQAdminExt (with DefaultMQAdminExtImpl).
//
// Deviation: Java's admin starts an MQClientInstance (heartbeats, route polling) under the
// TOOLS_CONSUMER group; this one only opens connections, since no request of mqadmin needs the
// broker to know it as a client.
type DefaultMQAdminExt struct {
	api      *client.MQClientAPI
	rc       *remoting.Client
	namesrvs []string
	timeout  time.Duration
}

// New returns an admin client over a new remoting client; it fails only without a name server.
func New(cfg Config) (*DefaultMQAdminExt, error) {
	addrs := protocol.SplitNamesrvAddr(cfg.NamesrvAddr)
	if len(addrs) == 0 {
		return nil, ErrNoNameServer
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	cc := client.DefaultClientConfig()
	cc.NamesrvAddr = cfg.NamesrvAddr
	cc.Remoting = cfg.Remoting
	cc.MQClientAPITimeout = cfg.Timeout
	opts := client.Options{AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, SecurityToken: cfg.SecurityToken}
	api := client.NewMQClientAPI(cc, opts, nil, nil)
	api.UpdateNameServerAddressList(addrs)
	return &DefaultMQAdminExt{api: api, rc: api.RemotingClient(), namesrvs: addrs, timeout: cfg.Timeout}, nil
}

// Shutdown closes every connection. Java: DefaultMQAdminExt#shutdown.
func (a *DefaultMQAdminExt) Shutdown() { a.api.Shutdown() }

// API is the client API the admin's requests go through (routes, offsets, pulls).
func (a *DefaultMQAdminExt) API() *client.MQClientAPI { return a.api }

// NamesrvAddrs is the name server list.
func (a *DefaultMQAdminExt) NamesrvAddrs() []string { return a.namesrvs }

// ctx bounds a request by the admin's timeout.
func (a *DefaultMQAdminExt) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, a.timeout)
}

// invoke sends req to addr and returns a SUCCESS answer; any other code is a
// *remoting.RemoteError naming addr.
func (a *DefaultMQAdminExt) invoke(ctx context.Context, addr string, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	resp, err := a.rc.InvokeSync(ctx, addr, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	if resp.Code != protocol.Success {
		return nil, &remoting.RemoteError{Code: resp.Code, Remark: resp.Remark, Addr: addr}
	}
	return resp, nil
}

// invokeNamesrv sends req to the name servers in order until one answers; the first one that
// answers decides (its non-SUCCESS answer is the error).
func (a *DefaultMQAdminExt) invokeNamesrv(ctx context.Context, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var err error
	for _, addr := range a.namesrvs {
		var resp *remoting.RemotingCommand
		resp, err = a.invoke(ctx, addr, req)
		if err == nil || !errors.Is(err, remoting.ErrConnect) {
			return resp, err
		}
	}
	return nil, err
}
