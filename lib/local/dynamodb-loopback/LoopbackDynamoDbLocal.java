// DynamoDB Local, bound to 127.0.0.1. Its ServerRunner builds a Jetty `new Server(port)`, whose one
// connector listens on every interface and has no option for a host; so this launcher builds the
// server the same way (same command-line flags, parsed by DynamoDB Local itself) and sets the
// connector's host before starting it. Run as a single-file source program:
//   java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java -port 8000 -inMemory -sharedDb -disableTelemetry
// (lib/local/dynamodb-loopback.mjs does this; no build step).

import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
    private static final String HOST = "127.0.0.1";

    public static void main(String[] args) throws Exception {
        if (Boolean.getBoolean("loopback.endWithParent")) endWithParent();
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server jetty = (Server) field.get(proxy);
        Connector[] connectors = jetty.getConnectors();
        if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local built a server without a connector");
        for (Connector connector : connectors) {
            // Refuse to start rather than fall back to every interface.
            if (!(connector instanceof ServerConnector)) throw new IllegalStateException("Unexpected connector " + connector.getClass().getName());
            ((ServerConnector) connector).setHost(HOST);
        }
        // safeStart, unlike start, does not swallow a bind failure: the process exits non-zero instead.
        proxy.safeStart();
        System.out.println("DynamoDB Local listening on " + HOST + ":" + ((ServerConnector) connectors[0]).getLocalPort());
        proxy.join();
    }

    /**
     * The process that started us holds our stdin's pipe open until it ends, however it ends: a
     * kill -9 or a crash runs none of its stop, but the kernel still closes the pipe. End then,
     * rather than outlive it holding memory, a port and the data directory's database.
     */
    private static void endWithParent() {
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // Nothing is written to us: wait for the end of the stream.
                }
            } catch (IOException gone) {
                // A broken pipe is the same news.
            }
            System.exit(0);
        }, "end-with-parent");
        watch.setDaemon(true);
        watch.start();
    }
}
