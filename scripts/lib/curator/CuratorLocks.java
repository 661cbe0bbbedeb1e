/*
 * Real Apache Curator lock users for Keeper's tests (issue 12): Debian's libcurator-recipes-java.
 * The tests compile it once (scripts/lib/locks/curatorClasses.ts); it also runs as a single-file
 * source program, compiled at each start (about 4 s of CPU):
 *
 *   java -cp /usr/share/java/curator-recipes.jar:/usr/share/java/slf4j-nop.jar \
 *     CuratorLocks.java HOSTS PATH SESSION_TIMEOUT_MS ROLE[,ROLE...]
 *
 * curator-recipes.jar's manifest names curator-framework, curator-client, zookeeper, guava and
 * slf4j-api, so one jar brings them all; slf4j-nop silences SLF4J's "no binding" warning.
 *
 * Each role is one participant with its own CuratorFramework, so its own session:
 *   lock   InterProcessMutex on PATH        read / write   InterProcessReadWriteLock on PATH
 *   latch  LeaderLatch on PATH (participant id "participant-<index>")
 * Participants start in order, each once the one before has its node, so sequence numbers follow
 * the roles' order. Each reports, as JSON lines on stdout:
 *   {"event":"session","index":i,"sessionId":"0x..."}
 *   {"event":"holding"|"waiting","index":i,"node":"<name>","path":"<full path>","watching":[...]}
 * "waiting" comes once the participant's watch is registered, so it really waits; "holding" comes
 * again, later, when a waiter gets the lock or the leadership. After the last participant:
 *   {"event":"ready"}
 * stdin takes "release <index>" (the lock released, or the latch closed: its node goes, the
 * session stays; answered {"event":"released","index":i}); "stop" or end of input closes every
 * session and exits, so the participants never outlive the test that started them.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

public class CuratorLocks {
  static final long STEP_DEADLINE_MS = 30_000;

  static synchronized void emit(String json) {
    System.out.println(json);
    System.out.flush();
  }

  static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static String strings(List<String> list) {
    List<String> quoted = new ArrayList<>();
    for (String s : list) quoted.add(str(s));
    return "[" + String.join(",", quoted) + "]";
  }

  static final class Participant {
    final int index;
    final String role;
    final String dir;
    final CuratorFramework client;
    final long sessionId;
    volatile boolean holding;
    volatile String node;
    final CountDownLatch releaseAsked = new CountDownLatch(1);
    LeaderLatch latch;

    Participant(int index, String role, String hosts, String dir, int sessionTimeoutMs) throws Exception {
      this.index = index;
      this.role = role;
      this.dir = dir;
      client = CuratorFrameworkFactory.builder()
          .connectString(hosts)
          .sessionTimeoutMs(sessionTimeoutMs)
          .connectionTimeoutMs(15_000)
          .retryPolicy(new ExponentialBackoffRetry(200, 10))
          .build();
      client.start();
      if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("participant " + index + " not connected");
      sessionId = zk().getSessionId();
      emit("{\"event\":\"session\",\"index\":" + index + ",\"sessionId\":" + str("0x" + Long.toHexString(sessionId)) + "}");
    }

    ZooKeeper zk() throws Exception {
      return client.getZookeeperClient().getZooKeeper();
    }

    void begin() throws Exception {
      if (role.equals("latch")) {
        latch = new LeaderLatch(client, dir, "participant-" + index);
        latch.addListener(new LeaderLatchListener() {
          public void isLeader() {
            holding = true;
            if (node != null) emitState();
          }

          public void notLeader() {
            holding = false;
          }
        });
        latch.start();
        return;
      }
      InterProcessLock lock = switch (role) {
        case "lock" -> new InterProcessMutex(client, dir);
        case "read" -> new InterProcessReadWriteLock(client, dir).readLock();
        case "write" -> new InterProcessReadWriteLock(client, dir).writeLock();
        default -> throw new IllegalArgumentException("unknown role " + role);
      };
      // Curator's locks belong to the thread that acquired them: this one thread acquires and
      // releases, so release() never meets "You do not own the lock".
      Thread t = new Thread(() -> {
        try {
          lock.acquire();
          holding = true;
          if (node != null) emitState();
          releaseAsked.await();
          lock.release();
          holding = false;
          emit("{\"event\":\"released\",\"index\":" + index + "}");
        } catch (Exception e) {
          if (!client.getState().toString().equals("STOPPED")) emit("{\"event\":\"error\",\"index\":" + index + ",\"message\":" + str(String.valueOf(e)) + "}");
        }
      }, "participant-" + index);
      t.setDaemon(true);
      t.start();
    }

    /** Our node: the child of the directory whose ephemeral owner is our session. */
    String findNode() throws Exception {
      if (latch != null) {
        String ours = latch.getOurPath();
        return ours == null ? null : ours.substring(ours.lastIndexOf('/') + 1);
      }
      if (client.checkExists().forPath(dir) == null) return null;
      for (String child : client.getChildren().forPath(dir)) {
        Stat stat = client.checkExists().forPath(dir + "/" + child);
        if (stat != null && stat.getEphemeralOwner() == sessionId) return child;
      }
      return null;
    }

    /** The data watches this session's client has registered in the directory (ZooKeeper keeps the list protected). */
    @SuppressWarnings("unchecked")
    List<String> watching() throws Exception {
      Method m = ZooKeeper.class.getDeclaredMethod("getDataWatches");
      m.setAccessible(true);
      List<String> out = new ArrayList<>();
      for (String p : (List<String>) m.invoke(zk())) if (p.startsWith(dir + "/")) out.add(p);
      return out;
    }

    private String lastState;

    /** Says where the participant stands, once per change (the acquiring thread and the poll may both ask). */
    synchronized void emitState() {
      String state = holding ? "holding" : "waiting";
      if (state.equals(lastState)) return;
      lastState = state;
      try {
        emit("{\"event\":" + str(state) + ",\"index\":" + index + ",\"node\":" + str(node)
            + ",\"path\":" + str(dir + "/" + node) + ",\"watching\":" + strings(holding ? List.of() : watching()) + "}");
      } catch (Exception e) {
        emit("{\"event\":\"error\",\"index\":" + index + ",\"message\":" + str(String.valueOf(e)) + "}");
      }
    }

    /** Until the node exists and the participant holds or has its watch set. */
    void awaitPosition() throws Exception {
      long deadline = System.currentTimeMillis() + STEP_DEADLINE_MS;
      while (System.currentTimeMillis() < deadline) {
        if (node == null) node = findNode();
        if (node != null && (holding || !watching().isEmpty())) {
          emitState();
          return;
        }
        Thread.sleep(20);
      }
      throw new IllegalStateException("participant " + index + " (" + role + ") has no node and watch after " + STEP_DEADLINE_MS + " ms");
    }

    void release() throws Exception {
      if (latch != null) {
        latch.close();
        holding = false;
        emit("{\"event\":\"released\",\"index\":" + index + "}");
      } else {
        releaseAsked.countDown();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String hosts = args[0], dir = args[1];
    int sessionTimeoutMs = Integer.parseInt(args[2]);
    String[] roles = args[3].split(",");
    List<Participant> participants = new ArrayList<>();
    try {
      for (int i = 0; i < roles.length; i++) {
        Participant p = new Participant(i, roles[i], hosts, dir, sessionTimeoutMs);
        participants.add(p);
        p.begin();
        p.awaitPosition();
      }
      emit("{\"event\":\"ready\"}");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      for (String line; (line = in.readLine()) != null && !line.equals("stop");) {
        if (line.startsWith("release ")) participants.get(Integer.parseInt(line.substring(8).trim())).release();
      }
    } catch (Exception e) {
      emit("{\"event\":\"error\",\"message\":" + str(String.valueOf(e)) + "}");
    } finally {
      for (Participant p : participants) {
        try {
          if (p.latch != null) p.latch.close();
        } catch (Exception ignored) {
          // closing anyway
        }
        p.client.close();
      }
    }
    System.exit(0);
  }
}
