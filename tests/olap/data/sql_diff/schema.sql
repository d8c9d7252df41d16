CREATE TABLE cust (
  id INTEGER NOT NULL,
  name VARCHAR(20) NOT NULL,
  region VARCHAR(20),
  score INTEGER,
  balance DECIMAL(10,2),
  signup DATE,
  PRIMARY KEY (id)
);
CREATE TABLE orders (
  oid INTEGER NOT NULL,
  cust_id INTEGER,
  amount DECIMAL(10,2),
  qty INTEGER,
  rate DOUBLE PRECISION,
  odate DATE,
  status VARCHAR(20),
  PRIMARY KEY (oid)
);
CREATE TABLE items (
  sku VARCHAR(20),
  cust_id INTEGER,
  price DECIMAL(10,2),
  weight DOUBLE PRECISION
);
