/*
 * One warm JVM that runs ENHSP's command line once per request, each in a fresh class loader
 * (pddlkit.planners.enhsp_harness starts it and says why).
 *
 * Each request loads ENHSP and its PDDL library (JPddl, whose static fields hold the grounded
 * task) in a new class loader, so no state of one problem reaches the next; the stateless
 * third-party libraries (guava, antlr, fastutil, ...) are loaded once, by the parent loader.
 *
 * Protocol: the process prints "READY"; a request is one line on standard input, tab
 * separated: the request's id, the file for ENHSP's standard output, the file for its
 * standard error, then ENHSP's command-line arguments (the host refuses control characters
 * in them). The reply is one line, "EXIT <id> <code>" (0, or 1 when main threw, as
 * `java -jar` exits). ENHSP calls System.exit on some errors; then this process
 * ends with that code, as `java -jar` would, after flushing what ENHSP printed to the files.
 * It runs in a session of its own (so the host can kill it at a time limit); it ends itself
 * when the process that started it is gone, even in the middle of a search.
 */

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

public final class EnhspHarness {
    private EnhspHarness() {}

    public static void main(String[] argv) throws Exception {
        File jar = new File(argv[0]);
        List<URL> fresh = new ArrayList<>();
        List<URL> shared = new ArrayList<>();
        fresh.add(jar.toURI().toURL());
        File[] libs = new File(jar.getParentFile(), "libs").listFiles();
        if (libs != null) {
            for (File lib : libs) {
                if (!lib.getName().endsWith(".jar")) continue;
                (lib.getName().startsWith("JPddl") ? fresh : shared).add(lib.toURI().toURL());
            }
        }
        ClassLoader libraries = new URLClassLoader(shared.toArray(new URL[0]),
                                                   ClassLoader.getPlatformClassLoader());
        PrintStream replies = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out),
                                              true, StandardCharsets.UTF_8);
        // an exit inside ENHSP must not lose what it printed
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.flush();
            System.err.flush();
        }));
        watchParent();
        BufferedReader requests = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8));
        replies.println("READY");
        String line;
        while ((line = requests.readLine()) != null) {
            String[] fields = line.split("\t", -1);
            if (fields.length < 3) {
                replies.println("EXIT " + fields[0] + " 2");
                continue;
            }
            String[] args = new String[fields.length - 3];
            System.arraycopy(fields, 3, args, 0, args.length);
            int code;
            try (PrintStream out = new PrintStream(new FileOutputStream(fields[1]), true,
                                                   StandardCharsets.UTF_8);
                 PrintStream err = new PrintStream(new FileOutputStream(fields[2]), true,
                                                   StandardCharsets.UTF_8)) {
                System.setOut(out);
                System.setErr(err);
                // java.util.logging's console handler keeps the System.err it was made with
                LogManager.getLogManager().reset();
                Logger.getLogger("").addHandler(new ConsoleHandler());
                code = run(fresh, libraries, args);
                out.flush();
                err.flush();
            }
            replies.println("EXIT " + fields[0] + " " + code);
        }
    }

    /** Halt when the parent process is gone (killed hosts leave no JVM searching behind). */
    private static void watchParent() {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        Thread watch = new Thread(() -> {
            while (true) {
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parent) Runtime.getRuntime().halt(137);
                try {
                    Thread.sleep(500);
                } catch (InterruptedException exc) {
                    return;
                }
            }
        });
        watch.setDaemon(true);
        watch.start();
    }

    private static int run(List<URL> fresh, ClassLoader libraries, String[] args) {
        try (URLClassLoader loader = new URLClassLoader(fresh.toArray(new URL[0]), libraries)) {
            Class<?> main = Class.forName("main", true, loader);
            main.getMethod("main", String[].class).invoke(null, (Object) args);
            return 0;
        } catch (InvocationTargetException exc) {
            exc.getCause().printStackTrace();   // what `java -jar` prints when main throws
            return 1;
        } catch (Throwable exc) {
            exc.printStackTrace();
            return 1;
        }
    }
}
