package client

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/acl"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// AclClientRPCHook signs each request before it is sent: it adds AccessKey, SecurityToken
// (when set) and Signature, the base64 HmacSHA1 of the sorted extFields' values and the body
// (acl.Sign). Mirrors org.apache.rocketmq.acl.common.AclClientRPCHook.
type AclClientRPCHook struct {
	Credentials acl.Credentials
}

// DoBeforeRequest implements remoting.RPCHook; it never fails.
func (h AclClientRPCHook) DoBeforeRequest(_ string, req *remoting.RemotingCommand) error {
	if req.ExtFields == nil {
		req.ExtFields = make(map[string]string, 3)
	}
	acl.Sign(req.ExtFields, req.Body, h.Credentials)
	return nil
}

// registerAclHook installs the signing hook on c when opts carry an AccessKey and a SecretKey.
func registerAclHook(c *remoting.Client, opts Options) {
	cred := acl.Credentials{AccessKey: opts.AccessKey, SecretKey: opts.SecretKey, SecurityToken: opts.SecurityToken}
	if !cred.Empty() {
		c.RegisterRPCHook(AclClientRPCHook{Credentials: cred})
	}
}
