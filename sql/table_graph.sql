-- tuplekv_table: a friends and followers graph, the guide's adjacency
-- list with an index for the reverse direction.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/table_graph.sql
--   edge   pack(('follows', follower, followee)) = pack((since,))
--   index  pack(('followers', followee, follower)) = ''
CREATE VIRTUAL TABLE follows USING tuplekv_table(
    follower TEXT, followee TEXT, since INTEGER,
    PRIMARY KEY(follower, followee), INDEX followers(followee, follower));

INSERT INTO follows VALUES ('ann', 'bob', 2019), ('ann', 'cyd', 2020), ('bob', 'ann', 2021),
                           ('cyd', 'ann', 2018), ('dee', 'ann', 2022), ('dee', 'bob', 2022);

-- Whom does ann follow (a prefix scan), and who follows ann (the index)?
SELECT followee FROM follows WHERE follower = 'ann';
SELECT follower FROM follows WHERE followee = 'ann';
-- Friends: people who follow each other, a self-join.
SELECT f.follower, f.followee FROM follows f
  JOIN follows g ON g.follower = f.followee AND g.followee = f.follower
 WHERE f.follower < f.followee;
-- Friends of friends of dee that dee does not follow yet.
SELECT DISTINCT g.followee FROM follows f JOIN follows g ON g.follower = f.followee
 WHERE f.follower = 'dee' AND g.followee != 'dee'
   AND g.followee NOT IN (SELECT followee FROM follows WHERE follower = 'dee');
-- Follower counts, most followed first.
SELECT followee, count(*) AS n FROM follows GROUP BY followee ORDER BY n DESC, followee;
-- Unfollow; the reverse entry goes with the edge.
DELETE FROM follows WHERE follower = 'dee' AND followee = 'ann';
SELECT follower FROM follows WHERE followee = 'ann';
SELECT tuplekv_check('follows');
