-- per variant, thread count and setting: the geometric mean over the shapes of
-- the default's median time over the setting's (>1: faster than the default),
-- and the worst shape; the default is the catalog's (family 25's line)
WITH d AS (SELECT run_id, variant, params, m, k, threads, median_us FROM results),
def AS (SELECT run_id, variant, m, k, threads, median_us FROM d
        WHERE params = CASE WHEN variant LIKE 'vnni%' THEN 'mtile=48,ntile=2,ktile=256,gemv=4'
                            WHEN variant LIKE 'i2_s%' OR variant LIKE 'tl%' OR variant LIKE 'tmac%' THEN 'pf=8192'
                            ELSE '' END)
SELECT d.variant, d.threads, d.params,
       printf('%.3f', exp(avg(ln(def.median_us / d.median_us)))) AS vs_default,
       printf('%.3f', min(def.median_us / d.median_us)) AS worst_shape
FROM d JOIN def ON def.run_id = d.run_id AND def.variant = d.variant AND def.m = d.m
                AND def.k = d.k AND def.threads = d.threads
GROUP BY d.run_id, d.variant, d.threads, d.params ORDER BY d.run_id, d.variant, d.threads, vs_default DESC;
