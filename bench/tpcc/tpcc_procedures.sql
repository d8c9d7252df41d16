-- The five TPC-C transactions as PL/pgSQL procedures, for PostgreSQL: the
-- peer of Forktail's C++ procedures (tpcc_procedures.cc) when the driver
-- runs `tpcc_driver run --procedures`, which sends one
-- `CALL name(arguments)` per transaction to either server. Same arguments,
-- same work, the same statements as tpcc_transactions.cc sends one by one.
--
--   new_order(w, d, c, VARIADIC lines): lines are (item, supply_w, quantity)
--     triples; an unused item (clause 2.4.1.4) raises 40000 "Item number is
--     not valid", which rolls the New-Order back, as the C++ one does.
--   payment(w, d, c_w, c_d, c_id, by_name, c_last, amount_cents)
--   order_status(w, d, c_id, by_name, c_last)
--   delivery(w, carrier)
--   stock_level(w, d, threshold)

-- Clause 2.5.2.2: the customer at position ceil(n / 2) in c_first order
-- among those of district (w, d) named `last` (Payment, Order-Status).
CREATE OR REPLACE FUNCTION tpcc_customer_by_name(w bigint, d bigint, last text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  SELECT array_agg(c_id ORDER BY c_first) INTO ids FROM customer
    WHERE c_w_id = w AND c_d_id = d AND c_last = last;
  IF ids IS NULL THEN
    RAISE EXCEPTION 'no customer named %', last USING ERRCODE = 'P0002';
  END IF;
  RETURN ids[(array_length(ids, 1) + 1) / 2];
END $$;

CREATE OR REPLACE PROCEDURE new_order(w bigint, d bigint, c bigint, VARIADIC lines bigint[])
LANGUAGE plpgsql AS $$
DECLARE
  n int := array_length(lines, 1) / 3;
  all_local int := 1;
  discount numeric; w_tax numeric; d_tax numeric;
  o bigint;
  k int; number int := 0;
  v_item bigint; v_supply_w bigint; v_qty bigint;
  price numeric; quantity int; dist text;
  total numeric := 0;
  amount numeric;
BEGIN
  FOR k IN 0 .. n - 1 LOOP
    IF lines[3 * k + 2] <> w THEN all_local := 0; END IF;
  END LOOP;
  SELECT c_discount INTO discount FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
  SELECT warehouse.w_tax INTO w_tax FROM warehouse WHERE w_id = w;
  SELECT d_next_o_id, district.d_tax INTO o, d_tax FROM district
    WHERE d_id = d AND d_w_id = w FOR UPDATE;
  UPDATE district SET d_next_o_id = o + 1 WHERE d_id = d AND d_w_id = w;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
    VALUES (o, d, w, c, now(), n, all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (o, d, w);
  -- Lines in (supply warehouse, item) order: row locks on stock are always
  -- taken in one order, so two New-Orders cannot deadlock.
  FOR v_item, v_supply_w, v_qty IN
    SELECT lines[3 * i + 1], lines[3 * i + 2], lines[3 * i + 3]
    FROM generate_series(0, n - 1) AS i ORDER BY 2, 1
  LOOP
    SELECT i_price INTO price FROM item WHERE i_id = v_item;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'Item number is not valid' USING ERRCODE = '40000';
    END IF;
    SELECT s_quantity,
           CASE d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                  WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                  WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                  ELSE s_dist_10 END
      INTO quantity, dist FROM stock WHERE s_i_id = v_item AND s_w_id = v_supply_w FOR UPDATE;
    quantity := CASE WHEN quantity >= v_qty + 10 THEN quantity - v_qty ELSE quantity - v_qty + 91 END;
    UPDATE stock SET s_quantity = quantity, s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1,
                     s_remote_cnt = s_remote_cnt + CASE WHEN v_supply_w = w THEN 0 ELSE 1 END
      WHERE s_i_id = v_item AND s_w_id = v_supply_w;
    amount := v_qty * price;
    total := total + amount;
    number := number + 1;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_quantity, ol_amount, ol_dist_info)
      VALUES (o, d, w, number, v_item, v_supply_w, v_qty, amount, dist);
  END LOOP;
  total := total * (1 - discount) * (1 + w_tax + d_tax);  -- what the terminal displays
END $$;

CREATE OR REPLACE PROCEDURE payment(w bigint, d bigint, c_w bigint, c_d bigint, c bigint,
                                    by_name boolean, last text, amount_cents bigint)
LANGUAGE plpgsql AS $$
DECLARE
  amount numeric := amount_cents / 100.0;
  w_name text; d_name text;
  credit text; data text;
BEGIN
  UPDATE district SET d_ytd = d_ytd + amount WHERE d_w_id = w AND d_id = d;
  SELECT district.d_name INTO d_name FROM district WHERE d_w_id = w AND d_id = d;
  UPDATE warehouse SET w_ytd = w_ytd + amount WHERE w_id = w;
  SELECT warehouse.w_name INTO w_name FROM warehouse WHERE w_id = w;
  IF by_name THEN c := tpcc_customer_by_name(c_w, c_d, last); END IF;
  SELECT c_credit INTO credit FROM customer
    WHERE c_w_id = c_w AND c_d_id = c_d AND c_id = c FOR UPDATE;
  IF credit = 'BC' THEN
    SELECT c_data INTO data FROM customer WHERE c_w_id = c_w AND c_d_id = c_d AND c_id = c;
    data := left(c || ' ' || c_d || ' ' || c_w || ' ' || d || ' ' || w || ' ' ||
                 to_char(amount, 'FM999999990.00') || ' | ' || data, 500);
    UPDATE customer SET c_balance = c_balance - amount, c_ytd_payment = c_ytd_payment + amount,
                        c_payment_cnt = c_payment_cnt + 1, c_data = data
      WHERE c_w_id = c_w AND c_d_id = c_d AND c_id = c;
  ELSE
    UPDATE customer SET c_balance = c_balance - amount, c_ytd_payment = c_ytd_payment + amount,
                        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = c_w AND c_d_id = c_d AND c_id = c;
  END IF;
  INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (c_d, c_w, c, d, w, now(), amount, w_name || '    ' || d_name);
END $$;

CREATE OR REPLACE PROCEDURE order_status(w bigint, d bigint, c bigint, by_name boolean,
                                         last text)
LANGUAGE plpgsql AS $$
DECLARE
  balance numeric;
  o bigint;
  line record;
BEGIN
  IF by_name THEN c := tpcc_customer_by_name(w, d, last); END IF;
  SELECT c_balance INTO balance FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
  SELECT o_id INTO o FROM orders WHERE o_w_id = w AND o_d_id = d AND o_c_id = c
    ORDER BY o_id DESC LIMIT 1;
  IF FOUND THEN
    FOR line IN SELECT ol_i_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
                WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o LOOP
      NULL;  -- what the terminal displays
    END LOOP;
  END IF;
END $$;

CREATE OR REPLACE PROCEDURE delivery(w bigint, carrier bigint)
LANGUAGE plpgsql AS $$
DECLARE
  o bigint; c bigint; sum_amount numeric;
BEGIN
  FOR d IN 1 .. 10 LOOP
    SELECT no_o_id INTO o FROM new_order WHERE no_w_id = w AND no_d_id = d
      ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    CONTINUE WHEN NOT FOUND;  -- clause 2.7.4.2: a skipped district
    DELETE FROM new_order WHERE no_w_id = w AND no_d_id = d AND no_o_id = o;
    SELECT o_c_id INTO c FROM orders WHERE o_w_id = w AND o_d_id = d AND o_id = o;
    UPDATE orders SET o_carrier_id = carrier WHERE o_w_id = w AND o_d_id = d AND o_id = o;
    UPDATE order_line SET ol_delivery_d = now()
      WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
    SELECT sum(ol_amount) INTO sum_amount FROM order_line
      WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
    UPDATE customer SET c_balance = c_balance + sum_amount, c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = w AND c_d_id = d AND c_id = c;
  END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE stock_level(w bigint, d bigint, threshold bigint)
LANGUAGE plpgsql AS $$
DECLARE
  next bigint;
  low bigint;
BEGIN
  SELECT d_next_o_id INTO next FROM district WHERE d_w_id = w AND d_id = d;
  SELECT count(DISTINCT s_i_id) INTO low FROM order_line, stock
    WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id < next AND ol_o_id >= next - 20
      AND s_w_id = w AND s_i_id = ol_i_id AND s_quantity < threshold;
END $$;
