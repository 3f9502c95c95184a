package remoting

// RPCHook runs around requests: on a Server before the processor of every request it received
// (the broker's ACL check), on a Client before every request it sends (signing). A server-side
// error refuses the request: the processor never runs and the answer is SYSTEM_ERROR with the
// error's text as remark, as Java's NettyRemotingAbstract answers an exception thrown by
// doBeforeRequest. On a Server the hook runs on the connection's reader before the request is
// queued to its pool (a Deviation: Java runs it on the pool's worker; see processorTable.dispatch).
// Mirrors org.apache.rocketmq.remoting.RPCHook (doBeforeRequest; doAfterResponse is not used).
type RPCHook interface {
	// DoBeforeRequest sees req before it is processed (server) or sent (client); remoteAddr is
	// the peer's "ip:port". A client-side hook may add extFields; its error fails the send.
	DoBeforeRequest(remoteAddr string, req *RemotingCommand) error
}

// RegisterRPCHook installs h before every processor of s (one hook; nil removes it). Call it
// before Start. Java: NettyRemotingServer#registerRPCHook.
func (s *Server) RegisterRPCHook(h RPCHook) { s.table.setHook(h) }

// RegisterRPCHook installs h on every request c sends (one hook; nil removes it); requests a
// server sends to c (CHECK_TRANSACTION_STATE, ...) do not pass through it. Call it before the
// first request. Java: NettyRemotingClient#registerRPCHook (doBeforeRequest before a send).
func (c *Client) RegisterRPCHook(h RPCHook) {
	c.table.mu.Lock()
	defer c.table.mu.Unlock()
	c.table.sendHook = h
}

func (t *processorTable) setHook(h RPCHook) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hook = h
}

// rpcHook is the hook run before processors: a Server's, never a Client's sendHook.
func (t *processorTable) rpcHook() RPCHook {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.hook
}

// beforeSend runs the client's hook on req (to addr); nil without a hook.
func (c *Client) beforeSend(addr string, req *RemotingCommand) error {
	c.table.mu.RLock()
	h := c.table.sendHook
	c.table.mu.RUnlock()
	if h != nil {
		return h.DoBeforeRequest(addr, req)
	}
	return nil
}
