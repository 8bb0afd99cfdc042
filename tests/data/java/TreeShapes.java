import java.io.*;
import java.lang.reflect.*;
import java.util.*;

/** Prints the shape of bucket 5 of a HashMap<Integer, Integer> at each S line of the ops read from stdin (new CAP, P k, C k, R k, X k). */
public class TreeShapes {
    static Field table, key, next, parent, left, right, red;
    static Class<?> treeNode;

    static Object get(Field f, Object o) throws Exception { return f.get(o); }

    static void pre(Object n, StringBuilder sb) throws Exception {
        if (n == null) { sb.append(". "); return; }
        sb.append(get(key, n)).append(red.getBoolean(n) ? "r " : "b ");
        pre(get(left, n), sb);
        pre(get(right, n), sb);
    }

    static String shape(HashMap<Integer, Integer> m, int bucket) throws Exception {
        Object[] tab = (Object[]) table.get(m);
        Object head = tab == null ? null : tab[bucket];
        StringBuilder sb = new StringBuilder();
        if (head != null && treeNode.isInstance(head)) {
            Object root = head;
            while (get(parent, root) != null) root = get(parent, root);
            sb.append("T ");
            pre(root, sb);
            sb.append("| ");
        } else {
            sb.append("L ");
        }
        for (Object n = head; n != null; n = get(next, n)) sb.append(get(key, n)).append(' ');
        return sb.toString().trim();
    }

    public static void main(String[] args) throws Exception {
        Class<?> node = Class.forName("java.util.HashMap$Node");
        treeNode = Class.forName("java.util.HashMap$TreeNode");
        table = HashMap.class.getDeclaredField("table");
        key = node.getDeclaredField("key");
        next = node.getDeclaredField("next");
        parent = treeNode.getDeclaredField("parent");
        left = treeNode.getDeclaredField("left");
        right = treeNode.getDeclaredField("right");
        red = treeNode.getDeclaredField("red");
        for (Field f : new Field[] {table, key, next, parent, left, right, red}) f.setAccessible(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        HashMap<Integer, Integer> m = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] p = line.split(" ");
            switch (p[0]) {
                case "new": m = new HashMap<>(Integer.parseInt(p[1])); System.out.println("#"); break;
                case "P": m.put(Integer.valueOf(p[1]), 0); break;
                case "C": m.computeIfAbsent(Integer.valueOf(p[1]), k -> 0); break;
                case "R": m.remove(Integer.valueOf(p[1])); break;
                case "X": {
                    Integer k = Integer.valueOf(p[1]);
                    for (Iterator<Integer> it = m.keySet().iterator(); it.hasNext();) {
                        if (it.next().equals(k)) { it.remove(); break; }
                    }
                    break;
                }
                case "S": System.out.println(shape(m, 5)); break;
                default: throw new IllegalArgumentException(line);
            }
        }
    }
}
